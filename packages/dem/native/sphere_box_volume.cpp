#include "sphere_box_volume.hpp"

#include <algorithm>
#include <cmath>

namespace peclet::dem {

namespace {

constexpr double kPi = 3.14159265358979323846;

// ---- 2-D: disk of radius s centred at the origin --------------------------

// Area of the disk with y > b.
double diskHalfPlane(double b, double s) {
  if (b >= s) return 0.0;
  if (b <= -s) return kPi * s * s;
  return s * s * std::acos(b / s) - b * std::sqrt(s * s - b * b);
}

// Area of the disk with x > a and y > b.
double diskQuadrant(double a, double b, double s) {
  if (a < 0.0) return diskHalfPlane(b, s) - diskQuadrant(-a, b, s);
  if (b < 0.0) return diskHalfPlane(a, s) - diskQuadrant(a, -b, s);
  if (a * a + b * b >= s * s) return 0.0;
  return 0.5 * s * s * (std::acos(a / s) - std::asin(b / s)) -
         0.5 * (a * std::sqrt(s * s - a * a) + b * std::sqrt(s * s - b * b)) + a * b;
}

// Area of the disk inside the rectangle [a0, a1] × [b0, b1].
double diskRectangle(double a0, double a1, double b0, double b1, double s) {
  return diskQuadrant(a0, b0, s) - diskQuadrant(a1, b0, s) - diskQuadrant(a0, b1, s) + diskQuadrant(a1, b1, s);
}

// ---- sphere surface of radius R centred at the origin ---------------------

// ∫ acos(a / √(R² − z²)) dz for 0 ≤ z ≤ √(R² − a²), a ≥ 0.
double acosIntegral(double z, double a, double R) {
  const double q2 = R * R - a * a;
  const double s2 = R * R - z * z;
  const double s = std::sqrt(std::max(s2, 0.0));
  // At a = 0 the integrand is π/2 right up to the pole (s = 0).
  const double ratio = s > a ? a / s : (a > 0.0 ? 1.0 : 0.0);
  const double q = std::sqrt(std::max(q2, 0.0));
  const double zq = q > 0.0 ? std::min(z / q, 1.0) : 1.0;
  return z * std::acos(ratio) - a * std::asin(zq) + R * std::atan2(a * z, R * std::sqrt(std::max(q2 - z * z, 0.0)));
}

// Sphere area with z > c.
double sphereCap(double c, double R) {
  if (c >= R) return 0.0;
  if (c <= -R) return 4.0 * kPi * R * R;
  return 2.0 * kPi * R * (R - c);
}

// Sphere area with y > b and z > c (Archimedes: dA = R dφ dz).
double sphereWedge(double b, double c, double R) {
  if (b < 0.0) return sphereCap(c, R) - sphereWedge(-b, c, R);
  if (c < 0.0) return sphereCap(b, R) - sphereWedge(b, -c, R);
  if (b * b + c * c >= R * R) return 0.0;
  // At height z the circle has radius s; y > b covers the angle 2·acos(b/s).
  const double zTop = std::sqrt(R * R - b * b);
  return 2.0 * R * (acosIntegral(zTop, b, R) - acosIntegral(c, b, R));
}

// Sphere area with x > a, y > b and z > c.
double sphereCorner(double a, double b, double c, double R) {
  if (a < 0.0) return sphereWedge(b, c, R) - sphereCorner(-a, b, c, R);
  if (b < 0.0) return sphereWedge(a, c, R) - sphereCorner(a, -b, c, R);
  if (c < 0.0) return sphereWedge(a, b, R) - sphereCorner(a, b, -c, R);
  if (a * a + b * b + c * c >= R * R) return 0.0;
  // Angle with x > a and y > b: acos(a/s) − asin(b/s) = acos(a/s) + acos(b/s) − π/2.
  const double zTop = std::sqrt(R * R - a * a - b * b);
  return R * (acosIntegral(zTop, a, R) - acosIntegral(c, a, R) + acosIntegral(zTop, b, R) - acosIntegral(c, b, R) -
              0.5 * kPi * (zTop - c));
}

}  // namespace

double sphereBoxVolume(const Vec3& centre, double radius, const Vec3& boxMin, const Vec3& boxMax) {
  const double R = radius;
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max(boxMin[a] - centre[a], -R);
    hi[a] = std::min(boxMax[a] - centre[a], R);
    if (lo[a] >= hi[a]) return 0.0;
  }
  // Faces clipped at ±R contribute nothing and keep the corner calls in range.
  double area = 0.0;
  for (int corner = 0; corner < 8; ++corner) {
    const double a = (corner & 1) ? hi[0] : lo[0];
    const double b = (corner & 2) ? hi[1] : lo[1];
    const double c = (corner & 4) ? hi[2] : lo[2];
    const int upper = ((corner & 1) != 0) + ((corner & 2) != 0) + ((corner & 4) != 0);
    area += (upper % 2 ? -1.0 : 1.0) * sphereCorner(a, b, c, R);
  }
  double faces = 0.0;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const double plane = side ? hi[axis] : lo[axis];
      if (std::fabs(plane) >= R) continue;
      const double s = std::sqrt(R * R - plane * plane);
      // Outward normal is +axis on the upper face, −axis on the lower one.
      const double distance = side ? plane : -plane;
      faces += distance * diskRectangle(lo[u], hi[u], lo[v], hi[v], s);
    }
  }
  // The sum cancels to a small volume from terms of order R³: clamp its round-off into the
  // bounds no intersection leaves (0 and the smaller of the sphere and the clipped box).
  const double box = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  return std::clamp((R * area + faces) / 3.0, 0.0, std::min(box, 4.0 / 3.0 * kPi * R * R * R));
}

}  // namespace peclet::dem
