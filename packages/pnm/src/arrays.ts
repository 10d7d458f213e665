/**
 * The plain arrays of a pore network, as the writers and statistics read them.
 * @internal
 */

/** Pore arrays (N pores), SI units. */
export interface PoreArrays {
  /** Centres, 3 per pore (m); voxel (i, j, k) is centred at ((i + ½)h, (j + ½)h, (k + ½)h). */
  readonly coordinates: Float64Array;
  /** m³ (0 for boundary pores). */
  readonly volume: Float64Array;
  /** m: twice the largest distance to solid inside the pore's region. */
  readonly inscribedDiameter: Float64Array;
  /**
   * m: diameter of the sphere of the pore's volume (PoreSpy's `pore.equivalent_diameter`). A
   * boundary pore's is that of the region snow2 puts there — its region's face section without
   * the section's border, extruded 3 voxels out of the box — which OpenPNM's conduit models use.
   */
  readonly equivalentDiameter: Float64Array;
  /** m²: the pore–solid interface. */
  readonly surfaceArea: Float64Array;
  /** The region label (value in `regions`) of the pore, or of the pore a boundary pore caps. */
  readonly label: Int32Array;
  /** −1 for interior pores; for boundary pores the face: 0 x−, 1 x+, 2 y−, 3 y+, 4 z−, 5 z+. */
  readonly face: Int8Array;
}

/** Throat arrays (M throats), SI units. */
export interface ThroatArrays {
  /** 2 per throat: the pores it joins (smaller index first). */
  readonly conns: Int32Array;
  /**
   * m: twice the largest distance to solid on the interface — the voxels of the higher-labelled
   * region that touch the other across a face (PoreSpy's `throat.inscribed_diameter`).
   */
  readonly inscribedDiameter: Float64Array;
  /** m²: the contact face between the two regions. */
  readonly area: Float64Array;
  /** m: where the contact face meets solid. */
  readonly perimeter: Float64Array;
  /** m: centre to centre (PoreSpy's `throat.direct_length`). */
  readonly length: Float64Array;
  /**
   * m: pore centre → the throat's peak (its interface voxel of the largest distance to solid, the
   * first in C order) → pore centre (PoreSpy's `throat.total_length`, OpenPNM's `throat.spacing`
   * in its recipe for snow2 networks). A boundary throat reaches the centre of the pore's snow2
   * region, 1.5 voxels out of the face, through a peak half a voxel out. Every extracted network
   * has it; arrays written by hand may leave it out.
   */
  readonly totalLength?: Float64Array;
  /** m: 3 per throat — the pore 1 part, the throat part, the pore 2 part (spheres and cylinders). */
  readonly conduitLengths: Float64Array;
}

/** What the writers need of a network. */
export interface NetworkArrays {
  readonly shape: readonly [number, number, number];
  readonly voxelSize: number;
  readonly porosity: number;
  readonly pores: PoreArrays;
  readonly throats: ThroatArrays;
}
