// Crystal lattices in periodic boxes: every cell is the exact Wigner-Seitz cell.
#include <array>

#include "checks.hpp"

using namespace peclet::voro;

namespace {

// n^3 cubic unit cells of side 1/n in the unit box, with `basis` points per unit cell.
std::vector<double> lattice(int n, const std::vector<std::array<double, 3>>& basis, double shift) {
  std::vector<double> xyz;
  const double a = 1.0 / n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        for (const auto& b : basis) {
          xyz.push_back((i + b[0] + shift) * a);
          xyz.push_back((j + b[1] + shift) * a);
          xyz.push_back((k + b[2] + shift) * a);
        }
  return xyz;
}

void expectLattice(const char* label, const std::vector<double>& xyz, std::size_t faces, double volume,
                   const std::vector<double>& areas) {
  const Box box = makeBox(0, 1, true, true, true);
  Tessellation t;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  const std::size_t n = xyz.size() / 3;
  std::size_t wrongFaces = 0;
  double volumeError = 0, areaError = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto count = std::size_t(t.neighborOffsets()[i + 1] - t.neighborOffsets()[i]);
    wrongFaces += count != faces;
    volumeError = std::max(volumeError, std::fabs(t.cellVolumes()[i] - volume) / volume);
    for (auto k = t.neighborOffsets()[i]; k < t.neighborOffsets()[i + 1]; ++k) {
      double best = 1e300;
      for (double a : areas) best = std::min(best, std::fabs(t.faceAreas()[k] - a) / a);
      areaError = std::max(areaError, best);
    }
  }
  Invariants r = checkInvariants(t, box);
  std::printf(
      "    %-28s cells with wrong face count %zu  max volume error %.1e  max area error "
      "%.1e\n",
      label, wrongFaces, volumeError, areaError);
  CHECK(wrongFaces == 0);
  CHECK(volumeError < 1e-12);
  CHECK(areaError < 1e-11);
  CHECK(r.asymmetric == 0 && r.areaMismatch == 0 && r.volumeError < 1e-12);
}

}  // namespace

TEST(simple_cubic_lattice) {
  for (int n : {4, 5, 7}) {
    const double a = 1.0 / n;
    expectLattice("simple cubic", lattice(n, {{0, 0, 0}}, 0.5), 6, a * a * a, {a * a});
    expectLattice("simple cubic on walls", lattice(n, {{0, 0, 0}}, 0.0), 6, a * a * a, {a * a});
  }
}

TEST(body_centred_cubic_lattice) {
  for (int n : {3, 4, 5}) {
    const double a = 1.0 / n;
    // Truncated octahedron: 6 squares of area a^2/8, 8 hexagons of area 3 sqrt(3) a^2 / 16.
    expectLattice("body-centred cubic", lattice(n, {{0, 0, 0}, {0.5, 0.5, 0.5}}, 0.25), 14, a * a * a / 2,
                  {a * a / 8, 3 * std::sqrt(3.0) * a * a / 16});
  }
}

TEST(face_centred_cubic_lattice) {
  for (int n : {3, 4, 5}) {
    const double a = 1.0 / n;
    // Rhombic dodecahedron: 12 rhombi of area sqrt(2) a^2 / 8.
    expectLattice("face-centred cubic", lattice(n, {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}, 0.1), 12,
                  a * a * a / 4, {std::sqrt(2.0) * a * a / 8});
  }
}
