// Input validation: each problem is reported with its kind, argument and first index.
#include <cmath>
#include <limits>

#include "test_framework.hpp"

using namespace peclet::voro;

TEST(validation_accepts_good_input) {
  Box box;
  std::vector<double> xyz = {0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0};
  CHECK(!validateInput(xyz.data(), xyz.size(), box, nullptr, 0));
  std::vector<double> r = {0.1, 0.0, 0.3};
  CHECK(!validateInput(xyz.data(), xyz.size(), box, r.data(), r.size()));
}

TEST(validation_reports_each_problem) {
  Box box;
  std::vector<double> xyz = {0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.7, 0.7, 0.7};
  ValidationError e = validateInput(xyz.data(), 8, box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kType && e.argument == "points" && e.index == -1);
  e = validateInput(xyz.data(), 0, box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.argument == "points");

  auto bad = xyz;
  bad[4] = std::numeric_limits<double>::quiet_NaN();
  e = validateInput(bad.data(), bad.size(), box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kType && e.argument == "points" && e.index == 1);
  bad = xyz;
  bad[8] = std::numeric_limits<double>::infinity();
  e = validateInput(bad.data(), bad.size(), box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kType && e.index == 2);

  bad = xyz;
  bad[3] = 1.5;
  e = validateInput(bad.data(), bad.size(), box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.argument == "points" && e.index == 1);
  Box periodic = box;
  periodic.periodic[0] = true;  // outside is fine on a periodic axis
  CHECK(!validateInput(bad.data(), bad.size(), periodic, nullptr, 0));

  std::vector<double> r = {0.1, 0.2};
  e = validateInput(xyz.data(), xyz.size(), box, r.data(), r.size());
  CHECK(e.kind == ErrorKind::kType && e.argument == "radii");
  r = {0.1, 0.2, -0.3};
  e = validateInput(xyz.data(), xyz.size(), box, r.data(), r.size());
  CHECK(e.kind == ErrorKind::kRange && e.argument == "radii" && e.index == 2);
  r = {0.1, std::nan(""), 0.3};
  e = validateInput(xyz.data(), xyz.size(), box, r.data(), r.size());
  CHECK(e.kind == ErrorKind::kType && e.argument == "radii" && e.index == 1);

  Box flat = box;
  flat.max[1] = flat.min[1];
  e = validateInput(xyz.data(), xyz.size(), flat, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.argument == "box" && e.index == 1);
  Box inverted = box;
  inverted.max[2] = -1;
  e = validateInput(xyz.data(), xyz.size(), inverted, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.argument == "box" && e.index == 2);
  CHECK(!e.message.empty());
}

TEST(validation_detects_coincident_points) {
  Box box;
  std::vector<double> xyz = {0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.7, 0.7, 0.7, 0.5, 0.5, 0.5};
  ValidationError e = validateInput(xyz.data(), xyz.size(), box, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.argument == "points" && e.index == 3);
  // Equal after wrapping a periodic axis: x = 0 and x = 1 are the same place.
  Box periodic = box;
  periodic.periodic[0] = true;
  std::vector<double> wrapped = {0.0, 0.5, 0.5, 1.0, 0.5, 0.5};
  e = validateInput(wrapped.data(), wrapped.size(), periodic, nullptr, 0);
  CHECK(e.kind == ErrorKind::kRange && e.index == 1);
  CHECK(!validateInput(wrapped.data(), wrapped.size(), box, nullptr, 0));
}

TEST(compute_returns_validation_errors) {
  Tessellation t;
  Box box;
  std::vector<double> xyz = {0.1, 0.2, 2.0};
  Outcome r = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{});
  CHECK(r.status == Status::kInvalid && r.error.kind == ErrorKind::kRange);
  CHECK(t.pointCount() == 0);
  CellGeometry g;
  CHECK(!t.cell(0, g));
  r = t.update(xyz.data(), Execution{});
  CHECK(r.status == Status::kInvalid);
}
