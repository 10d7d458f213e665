#!/usr/bin/env python3
"""SNOW pore-network extraction and Stokes flow, in NumPy/SciPy/scikit-image: the reference
that bench/pnm.mjs times @peclet/pnm against.

It follows the published SNOW algorithm (Sub-Network of an Over-segmented Watershed; Gostick,
"Versatile and efficient pore network extraction method using marker-based watershed
segmentation", Phys. Rev. E 96, 023307, 2017) as PoreSpy describes it for snow_partitioning and
regions_to_network. It is written from that description, not from PoreSpy's code (PoreSpy cannot
be installed here), with the libraries a PoreSpy user would have:

  distance transform  scipy.ndimage.distance_transform_edt of the pore space
  smoothing           scipy.ndimage.gaussian_filter of that distance map (sigma 0.4)
  peaks               dt == maximum_filter(dt + 2·solid, footprint=ball(r_max = 4)), in the pore
                      (--peak-mask smoothed: "pore" and "solid" taken as smoothed dt > 0 and
                      its complement instead, as PoreSpy's find_peaks does when handed the
                      smoothed map: a few solid voxels beside the pore then count as pore);
                      trim_saddle_points: each peak (a 26-connected plateau) is grown by 3×3×3
                      dilations over voxels of its own value, up to 20 iterations: a higher pore
                      voxel next to it makes it a saddle or ridge point and it is dropped, a
                      plateau that stops growing is a true peak;
                      trim_nearby_peaks: a KD-tree over the peaks' (rounded) centres; a peak whose
                      nearest peak is closer than its distance value is a pair, and the one of the
                      pair with the smaller distance value is dropped;
                      then the peaks are labelled (26-connected) as markers
  watershed           skimage.segmentation.watershed(-dt, markers), regions masked to the pore
  network             per region: volume, centroid, inscribed diameter (2 × the largest value of
                      the region's own distance transform), neighbours by a 6-connected dilation;
                      one throat per touching pair, its area the contact voxels (the neighbour's
                      voxels in the dilated shell), its diameter 2 × the largest distance value on
                      them; boundary pores on the two faces of the flow axis, one per region
                      touching the face (area: its voxels on the face)
  solve               Stokes flow, OpenPNM-style: conduits pore–throat–pore of spheres truncated
                      by cylinders, Hagen–Poiseuille conductance (the integral of dx/r(x)^4 along
                      each part), pressure fixed on the boundary pores, pores not joining both
                      faces left out, scipy.sparse.linalg.spsolve; K = Q μ L / (A ΔP)

Usage:
  /usr/bin/python3 snow_reference.py IMAGE.raw --shape N0 N1 N2 [--voxel-size 1e-6]
      [--sigma 0.4] [--r-max 4] [--axis 0] [--viscosity 1e-3] [--peak-mask pore|smoothed]

IMAGE.raw is uint8, 1 = solid, 0 = pore, C order over the shape (axis 0 is x). Progress goes to
stderr; the last line on stdout is one JSON object: per-stage seconds (times), pore and throat
counts (interior and boundary), the peak counts after each trimming step, porosity and the
permeability.
"""

import argparse
import json
import sys
import time

import numpy as np
from scipy import ndimage as ndi
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse.linalg import spsolve
from scipy.spatial import cKDTree
from skimage.morphology import ball
from skimage.segmentation import watershed

CUBE = np.ones((3, 3, 3), dtype=bool)  # 26-connectivity
CROSS = ndi.generate_binary_structure(3, 1)  # 6-connectivity


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def padded(slices, shape, pad):
    """The slices grown by `pad` on every side, clipped to the image."""
    return tuple(slice(max(s.start - pad, 0), min(s.stop + pad, n)) for s, n in zip(slices, shape))


# ----------------------------------------------------------------------------- peaks


def find_peaks(dt, pore, r_max):
    """Voxels of `pore` equal to the maximum of the distance map over a ball of radius r_max around
    them, the voxels outside `pore` raised by 2 (so that no peak of a thin spot, dt < 2, lies within
    r_max of them)."""
    mx = ndi.maximum_filter(dt + 2.0 * (~pore), footprint=ball(r_max))
    return (dt == mx) & pore


def trim_saddle_points(peaks, dt, pore, maxiter=20):
    """Drops the peaks that are saddle or ridge points: grown over voxels of their own value, a
    peak plateau that reaches a higher voxel was not a maximum."""
    labels, n = ndi.label(peaks, structure=CUBE)
    keep = np.zeros(n + 1, dtype=bool)
    for index, s in enumerate(ndi.find_objects(labels), start=1):
        box = padded(s, dt.shape, maxiter + 1)
        dt_box, pore_box = dt[box], pore[box]
        plateau = labels[box] == index
        value = dt_box[plateau].max()
        size = int(plateau.sum())
        kept = True
        for _ in range(maxiter):
            # Dilate inside the plateau's bounding box grown by one (a cheap window).
            nz = np.nonzero(plateau)
            win = tuple(slice(max(a.min() - 1, 0), min(a.max() + 2, m)) for a, m in zip(nz, plateau.shape))
            grown = ndi.binary_dilation(plateau[win], CUBE) & pore_box[win]
            if dt_box[win][grown].max() > value:
                kept = False  # a higher neighbour: a saddle (or a ridge) point
                break
            extended = grown & (dt_box[win] >= value)
            count = int(extended.sum())
            if count == size:
                break  # the plateau stopped growing: a true peak
            plateau = np.zeros_like(plateau)
            plateau[win] = extended
            size = count
        keep[index] = kept
    return keep[labels]


def trim_nearby_peaks(peaks, dt):
    """Of two peaks closer together than the distance value of one of them, drops the one with
    the smaller distance value (a KD-tree gives each peak's nearest peak)."""
    labels, n = ndi.label(peaks, structure=CUBE)
    if n < 2:
        return peaks
    centres = np.array(ndi.center_of_mass(peaks, labels, np.arange(1, n + 1)))
    centres = np.rint(centres).astype(np.intp)
    dt_peak = dt[tuple(centres.T)]
    distance, nearest = cKDTree(centres).query(centres, k=2)
    distance, nearest = distance[:, 1], nearest[:, 1]
    keep = np.ones(n + 1, dtype=bool)
    keep[0] = False
    for i in np.nonzero(distance < dt_peak)[0]:
        j = nearest[i]
        keep[(i if dt_peak[i] <= dt_peak[j] else j) + 1] = False
    return keep[labels]


# ----------------------------------------------------------------------------- network


def regions_to_network(regions, count, dt, axis, h):
    """Pores (one per region, then the boundary pores) and throats (one per touching pair)."""
    shape = regions.shape
    volume = np.zeros(count)
    centroid = np.zeros((count, 3))
    inscribed = np.zeros(count)
    conns, area, diameter = [], [], []
    for index, s in enumerate(ndi.find_objects(regions), start=1):
        if s is None:
            continue
        box = padded(s, shape, 1)
        sub = regions[box]
        mask = sub == index
        nz = np.nonzero(mask)
        volume[index - 1] = nz[0].size
        centroid[index - 1] = [a.mean() + b.start for a, b in zip(nz, box)]
        inscribed[index - 1] = 2 * ndi.distance_transform_edt(np.pad(mask, 1)).max()
        shell = ndi.binary_dilation(mask, CROSS) & ~mask
        neighbour = sub[shell]
        contact_dt = dt[box][shell]
        higher = neighbour > index  # each pair once, from its lower label
        neighbour, contact_dt = neighbour[higher], contact_dt[higher]
        if neighbour.size == 0:
            continue
        others, inverse, counts = np.unique(neighbour, return_inverse=True, return_counts=True)
        largest = np.zeros(others.size)
        np.maximum.at(largest, inverse, contact_dt)
        conns.append(np.stack([np.full(others.size, index - 1), others - 1], axis=1))
        area.append(counts.astype(float))
        diameter.append(2 * largest)
    conns = np.concatenate(conns) if conns else np.zeros((0, 2), dtype=np.intp)
    area = np.concatenate(area) if area else np.zeros(0)
    diameter = np.concatenate(diameter) if diameter else np.zeros(0)

    # Boundary pores: one per region touching each face of the flow axis, on the face.
    faces = []
    for side, plane in ((0, 0), (1, shape[axis] - 1)):
        face_labels = np.take(regions, plane, axis=axis)
        face_dt = np.take(dt, plane, axis=axis)
        inside = face_labels > 0
        labels, inverse, counts = np.unique(face_labels[inside], return_inverse=True, return_counts=True)
        largest = np.zeros(labels.size)
        np.maximum.at(largest, inverse, face_dt[inside])
        faces.append({'side': side, 'pores': labels - 1, 'area': counts.astype(float), 'diameter': 2 * largest})

    return {
        'volume': volume * h**3,
        'centroid': (centroid + 0.5) * h,  # voxel (i, j, k) centred at ((i + ½)h, …)
        'inscribed': inscribed * h,
        'conns': conns,
        'area': area * h**2,
        'diameter': diameter * h,
        'faces': faces,
        'extent': np.array(shape) * h,
    }


# ----------------------------------------------------------------------------- Stokes flow


def sphere_integral(R, L):
    """∫₀ᴸ dx / r(x)⁴ with r(x)² = R² − x² (a sphere truncated at L < R)."""
    R2 = R * R
    return L / (2 * R2 * (R2 - L * L)) + np.log((R + L) / (R - L)) / (4 * R2 * R)


def conductance(r1, r2, rt, length, viscosity):
    """Hagen–Poiseuille conductance of sphere–cylinder–sphere conduits (r2 = None: no second pore)."""
    rt = np.minimum(rt, 0.999 * (r1 if r2 is None else np.minimum(r1, r2)))
    l1 = np.sqrt(r1 * r1 - rt * rt)
    l2 = np.zeros_like(l1) if r2 is None else np.sqrt(r2 * r2 - rt * rt)
    scale = np.minimum(1.0, 0.999 * length / np.maximum(l1 + l2, 1e-300))  # pores overlapping: shrink
    l1, l2 = l1 * scale, l2 * scale
    lt = np.maximum(length - l1 - l2, 1e-3 * length)
    resistance = sphere_integral(r1, l1) + lt / rt**4
    if r2 is not None:
        resistance = resistance + sphere_integral(r2, l2)
    return np.pi / (8 * viscosity) / resistance


def stokes_flow(net, axis, viscosity, p_in=101326.0, p_out=101325.0):
    n = net['volume'].size
    c = net['centroid']
    a, b = net['conns'][:, 0], net['conns'][:, 1]
    r = net['inscribed'] / 2
    g = conductance(r[a], r[b], net['diameter'] / 2, np.linalg.norm(c[a] - c[b], axis=1), viscosity)
    inlet, outlet = net['faces']
    g_face = []
    for face in net['faces']:
        p = face['pores']
        distance = c[p, axis] if face['side'] == 0 else net['extent'][axis] - c[p, axis]
        g_face.append(conductance(r[p], None, face['diameter'] / 2, distance, viscosity))

    # Pores in clusters that join both faces: node n stands for the inlet, n + 1 for the outlet.
    rows = np.concatenate([a, inlet['pores'], outlet['pores']])
    cols = np.concatenate([b, np.full(inlet['pores'].size, n), np.full(outlet['pores'].size, n + 1)])
    graph = sparse.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n + 2, n + 2))
    _, component = csgraph.connected_components(graph, directed=False)
    if component[n] != component[n + 1]:
        return 0.0, 0
    active = component[:n] == component[n]
    index = np.cumsum(active) - 1
    m = int(active.sum())

    keep = active[a] & active[b]
    ia, ib, gk = index[a[keep]], index[b[keep]], g[keep]
    diagonal = np.zeros(m)
    np.add.at(diagonal, ia, gk)
    np.add.at(diagonal, ib, gk)
    rhs = np.zeros(m)
    for face, gf, pressure in ((inlet, g_face[0], p_in), (outlet, g_face[1], p_out)):
        np.add.at(diagonal, index[face['pores']], gf)
        np.add.at(rhs, index[face['pores']], gf * pressure)
    diag = np.arange(m)
    rows, cols = np.concatenate([diag, ia, ib]), np.concatenate([diag, ib, ia])
    matrix = sparse.coo_matrix((np.concatenate([diagonal, -gk, -gk]), (rows, cols)), shape=(m, m)).tocsc()
    pressure = spsolve(matrix, rhs)
    flow = np.sum(g_face[0] * (p_in - pressure[index[inlet['pores']]]))
    extent = net['extent']
    section = np.prod(extent) / extent[axis]
    return float(flow * viscosity * extent[axis] / (section * (p_in - p_out))), m


# ----------------------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('image')
    parser.add_argument('--shape', type=int, nargs=3, required=True)
    parser.add_argument('--voxel-size', type=float, default=1e-6)
    parser.add_argument('--sigma', type=float, default=0.4)
    parser.add_argument('--r-max', type=int, default=4)
    parser.add_argument('--axis', type=int, default=0)
    parser.add_argument('--viscosity', type=float, default=1e-3)
    parser.add_argument('--peak-mask', choices=['pore', 'smoothed'], default='pore')
    args = parser.parse_args()

    solid = np.fromfile(args.image, dtype=np.uint8).reshape(args.shape)
    pore = solid == 0
    del solid
    times, counts = {}, {}

    start = time.perf_counter()
    dt = ndi.distance_transform_edt(pore)
    times['distanceTransform'] = time.perf_counter() - start
    log(f'distance transform {times["distanceTransform"]:.2f} s')

    start = time.perf_counter()
    smooth = ndi.gaussian_filter(dt, sigma=args.sigma) if args.sigma > 0 else dt
    times['smoothing'] = time.perf_counter() - start
    log(f'smoothing {times["smoothing"]:.2f} s')

    start = time.perf_counter()
    peaks = find_peaks(smooth, pore if args.peak_mask == 'pore' else smooth > 0, args.r_max)
    counts['peaksFound'] = int(ndi.label(peaks, structure=CUBE)[1])
    peaks = trim_saddle_points(peaks, smooth, pore)
    counts['peaksAfterSaddle'] = int(ndi.label(peaks, structure=CUBE)[1])
    peaks = trim_nearby_peaks(peaks, smooth)
    markers, count = ndi.label(peaks, structure=CUBE)
    counts['peaks'] = int(count)
    times['peaks'] = time.perf_counter() - start
    log(f'peaks {times["peaks"]:.2f} s: {counts}')

    start = time.perf_counter()
    regions = watershed(-smooth, markers)
    regions *= pore
    times['watershed'] = time.perf_counter() - start
    log(f'watershed {times["watershed"]:.2f} s')
    del smooth, markers, peaks

    start = time.perf_counter()
    net = regions_to_network(regions, count, dt, args.axis, args.voxel_size)
    times['network'] = time.perf_counter() - start
    log(f'network {times["network"]:.2f} s')

    start = time.perf_counter()
    permeability, unknowns = stokes_flow(net, args.axis, args.viscosity)
    times['solve'] = time.perf_counter() - start
    log(f'solve {times["solve"]:.2f} s')

    boundary = sum(face['pores'].size for face in net['faces'])
    result = {
        'times': times,
        'total': sum(times.values()),
        'pores': int(np.count_nonzero(net['volume'])),
        'boundaryPores': int(boundary),
        'throats': int(net['conns'].shape[0]),
        'boundaryThroats': int(boundary),
        'porosity': float(pore.mean()),
        'permeability': permeability,
        'millidarcy': permeability / 9.869233e-16,
        'unknowns': unknowns,
        **counts,
    }
    print(json.dumps(result), flush=True)


if __name__ == '__main__':
    main()
