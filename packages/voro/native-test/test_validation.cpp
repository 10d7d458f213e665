// Input validation: each problem is reported with its kind, argument and first index.
#include <cmath>
#include <limits>

#include "checks.hpp"
#include "test_framework.hpp"
#include "thread_pool.hpp"

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

TEST(compute_reports_coincident_points_like_validate_input) {
  // compute() looks for coincident points within its grid bins (in parallel) and must report
  // exactly what validateInput reports: the smallest "second of a pair" (in position order,
  // ties by index) among several pairs, and a pair equal only after wrapping a periodic axis.
  Box box;
  box.periodic[0] = true;
  ThreadPool pool(2);
  for (int layout = 0; layout < 2; ++layout) {
    std::vector<double> xyz = randomPoints(5000, box, 21);
    auto copyPoint = [&](std::size_t to, std::size_t from, double shiftX) {
      for (int a = 0; a < 3; ++a) xyz[3 * to + a] = xyz[3 * from + a];
      xyz[3 * to] += shiftX;
    };
    xyz[3 * 4500] = 0.25;        // exact in binary, so that 1.25 wraps onto it exactly
    copyPoint(3000, 4500, 1.0);  // same place once x is wrapped: 4500 is reported
    if (layout == 1) {
      copyPoint(4000, 17, 0.0);
      copyPoint(3500, 12, 0.0);  // 3500 is reported
    }
    const ValidationError expected = validateInput(xyz.data(), xyz.size(), box, nullptr, 0);
    CHECK(expected.kind == ErrorKind::kRange && expected.index == (layout == 0 ? 4500 : 3500));
    for (const Execution& exec : {Execution{}, pool.execution()}) {
      Tessellation t;
      Outcome r = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, exec);
      CHECK(r.status == Status::kInvalid && r.error.kind == expected.kind && r.error.argument == expected.argument &&
            r.error.index == expected.index && r.error.message == expected.message);
      CHECK(t.pointCount() == 0);
      // update() after a good compute() checks the same way.
      std::vector<double> good = randomPoints(5000, box, 21);
      CHECK(t.compute(good.data(), good.size(), box, nullptr, 0, exec).status == Status::kOk);
      const std::vector<double> volumes = t.cellVolumes();
      const std::vector<std::int32_t> neighbors = t.neighbors();
      r = t.update(xyz.data(), exec);
      CHECK(r.status == Status::kInvalid && r.error.index == expected.index);
      // A refused update leaves the results as they were, and the object still usable.
      CHECK(t.pointCount() == 5000);
      CHECK(t.cellVolumes() == volumes && t.neighbors() == neighbors);
      CHECK(t.update(good.data(), exec).status == Status::kOk);
      CHECK(t.cellVolumes() == volumes);
    }
  }
}
