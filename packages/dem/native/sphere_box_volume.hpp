#pragma once
/// \file
/// Exact volume of the intersection of a sphere and an axis-aligned box.

#include "vec3.hpp"

namespace peclet::dem {

/// Volume (m³) of the ball of `radius` centred at `centre` intersected with
/// the box [boxMin, boxMax], in closed form (no sampling, no quadrature).
///
/// By the divergence theorem with the field (x − centre)/3, the volume is
/// one third of R·(sphere area inside the box) plus Σ over the six faces of
/// (signed distance of the face plane from the centre)·(area of the face
/// inside the ball). Both areas follow from corner functions (region
/// x > a, y > b, z > c) combined by inclusion–exclusion; the sphere-area corner
/// is an Archimedes-projection integral with an elementary antiderivative.
/// Accurate to a few ulps of R³.
///
/// Example: `sphereBoxVolume({0,0,0}, 1.0, {0,0,0}, {2,2,2})` is π/6.
double sphereBoxVolume(const Vec3& centre, double radius, const Vec3& boxMin, const Vec3& boxMax);

}  // namespace peclet::dem
