#pragma once
/// \file
/// Steady diffusion (Laplace) on the pore voxels of an image: the direct
/// formation factor and tortuosity, as PoreSpy's tortuosity_fd defines them.
/// Plain C++ (no Node-API).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "network.hpp"

namespace peclet::pnm {

struct VoxelDiffusionOptions {
  std::array<std::size_t, 3> shape{};
  int axis = 0;                               ///< concentration 1 on its first plane, 0 on its last
  double tolerance = 1e-8;                    ///< relative residual ‖b − Ax‖/‖b‖
  std::size_t maxIterations = 0;              ///< 0: 20 × (the axis's extent + the largest extent) + 10000
  ParallelFor parallelFor;                    ///< empty: serial
  const std::atomic<bool>* cancel = nullptr;  ///< polled between iterations
};

struct VoxelDiffusionResult {
  double formationFactor = 0;         ///< 1 / D_eff
  double effectiveDiffusivity = 0;    ///< D_eff / D_bulk = rate (L − 1) / A
  double tortuosity = 0;              ///< φ_eff / D_eff
  double porosity = 0;                ///< pore voxels / voxels
  double effectivePorosity = 0;       ///< pore voxels of clusters joining both planes / voxels
  double inletRate = 0;               ///< flux out of the first plane (voxel units)
  double outletRate = 0;              ///< flux into the last plane
  std::vector<double> concentration;  ///< per voxel; NaN in solid and in pore that does not join both planes
  std::size_t unknowns = 0;
  std::size_t iterations = 0;
  double residual = 0;  ///< the true relative residual at the end
  bool converged = false;
  bool cancelled = false;
};

/// The concentration with 1 on the pore voxels of the first plane along
/// `axis` and 0 on those of the last, zero flux through solid and the other
/// faces, over the pore clusters (6-connected) that join both planes: the
/// 7-point finite-volume Laplacian (unit conductance between face-adjacent
/// pore voxels), solved by conjugate gradients preconditioned by symmetric
/// Gauss–Seidel in red–black order (both sweeps parallel). D_eff = rate
/// (L − 1) / A with A the plane's area and L − 1 the distance between the two
/// planes' centres, in voxels; F = 1/D_eff; tortuosity φ_eff/D_eff.
///
/// Throws PnmError: image.solid (a value other than 0 and 1; no pore path
/// joins the planes), image.shape (fewer than 2 voxels along the axis), axis.
VoxelDiffusionResult voxelDiffusion(const std::uint8_t* solid, const VoxelDiffusionOptions& options);

}  // namespace peclet::pnm
