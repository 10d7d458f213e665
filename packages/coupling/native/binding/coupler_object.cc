#include "coupler_object.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace peclet_coupling {

namespace cp = peclet::coupling;

void CouplerState::account() {
  std::size_t bytes = 0;
  for (const auto* v : {&solid,        &epsilon,     &velocity,     &pressure,     &gradient,     &fluidForce,
                        &drag,         &total,       &positions,    &velocities,   &radii,        &masses,
                        &nextSolid,    &nextEpsilon, &nextVelocity, &nextPressure, &nextGradient, &nextFluidForce,
                        &nextDrag,     &nextTotal,   &heldDrag,     &nextHeldDrag, &contacts,     &undoForce,
                        &undoPorosity, &undoDrag,    &undoTotal,    &undoHeldDrag, &momentum})
    bytes += v->capacity() * sizeof(double);
  ledger.resize(bytes + footprints.capacity() * sizeof(peclet::coupling::Footprint));
}

namespace {

// The TypeScript layer checks and normalizes options; a missing field reads
// as NaN here and fails the checks below with its name.
double number(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : std::nan("");
}

void vector3(const Napi::Object& o, const char* key, double* out) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray() || v.As<Napi::Array>().Length() != 3) peclet::kernelTypeError(key, "must be [x, y, z]");
  for (std::uint32_t a = 0; a < 3; a++) {
    Napi::Value x = v.As<Napi::Array>().Get(a);
    out[a] = x.IsNumber() ? x.As<Napi::Number>().DoubleValue() : std::nan("");
    if (!std::isfinite(out[a])) peclet::kernelRangeError(key, "must be finite", a);
  }
}

// A Float64Array of `length` elements (read in place: the caller copies
// what it must not see change).
Napi::Float64Array array(const Napi::Object& o, const char* key, std::size_t length) {
  Napi::Value v = o.Get(key);
  if (!peclet::isFloat64Array(v)) peclet::kernelTypeError(key, "must be a Float64Array");
  Napi::Float64Array a = v.As<Napi::Float64Array>();
  if (a.ElementLength() != length)
    peclet::kernelRangeError(key, "has " + std::to_string(a.ElementLength()) + " elements, expected " +
                                      std::to_string(length) + " (was it detached?)");
  return a;
}

void copy(const Napi::Float64Array& from, std::vector<double>& to) {
  to.resize(from.ElementLength());
  if (!to.empty()) std::memcpy(to.data(), from.Data(), to.size() * sizeof(double));
}

}  // namespace

Napi::Function Coupler::Init(Napi::Env env) {
  auto members = LifecycleMembers();
  members.push_back(Method<&Coupler::Arrays>("arrays"));
  members.push_back(Getter<&Coupler::Generation>("generation"));
  members.push_back(Method<&Coupler::Exchange>("exchange"));
  members.push_back(Method<&Coupler::DensestCell>("densestCell"));
  members.push_back(Method<&Coupler::Undo>("undo"));
  return DefineClass(env, "CoupledSimulation", members);
}

// new Coupler({ shape, cellSize, origin, periodic, drag, viscosity, density, minVoidFraction })
Coupler::Coupler(const Napi::CallbackInfo& info) : peclet::Object<Coupler>(info) {
  state_ = peclet::guard(info.Env(), "new Coupler", [&] {
    if (info.Length() < 1 || !info[0].IsObject()) peclet::kernelTypeError("options", "must be an object");
    Napi::Object o = info[0].As<Napi::Object>();
    auto s = std::make_shared<CouplerState>(envId());
    cp::Grid& g = s->grid;
    double shape[3];
    vector3(o, "shape", shape);
    double cells = 1;
    for (int a = 0; a < 3; a++) {
      if (!(shape[a] >= 1 && shape[a] == std::floor(shape[a]) && shape[a] < 65536))
        peclet::kernelRangeError("shape", "must be whole numbers of cells in [1, 65535]", a);
      g.n[a] = std::size_t(shape[a]);
      cells *= shape[a];
    }
    g.cell = number(o, "cellSize");
    if (!(g.cell > 0 && std::isfinite(g.cell))) peclet::kernelRangeError("cellSize", "must be a positive number");
    vector3(o, "origin", g.origin);
    Napi::Value periodic = o.Get("periodic");
    if (!periodic.IsArray() || periodic.As<Napi::Array>().Length() != 3)
      peclet::kernelTypeError("periodic", "must be three booleans");
    for (std::uint32_t a = 0; a < 3; a++) g.periodic[a] = periodic.As<Napi::Array>().Get(a).ToBoolean();
    Napi::Value drag = o.Get("drag");
    if (!drag.IsString()) peclet::kernelTypeError("drag", "must be a string");
    s->parameters.drag = cp::parseDrag(drag.As<Napi::String>().Utf8Value());
    s->parameters.viscosity = number(o, "viscosity");
    s->parameters.density = number(o, "density");
    s->parameters.minVoidFraction = number(o, "minVoidFraction");
    if (!(s->parameters.viscosity > 0 && std::isfinite(s->parameters.viscosity)))
      peclet::kernelRangeError("viscosity", "must be a positive number");
    if (!(s->parameters.density > 0 && std::isfinite(s->parameters.density)))
      peclet::kernelRangeError("density", "must be a positive number");
    s->parameters.selfCorrection = o.Get("selfCorrection").ToBoolean();
    if (!(s->parameters.minVoidFraction > 0 && s->parameters.minVoidFraction < 1))
      peclet::kernelRangeError("minVoidFraction", "must be in (0, 1)");
    peclet::ensureAllocatable("shape", "the coupling fields of " + std::to_string(std::uint64_t(cells)) + " cells",
                              cells * 12 * sizeof(double));
    const std::size_t n = g.cells();
    s->solid.assign(n, 0.0);
    s->epsilon.assign(n, 1.0);
    s->velocity.assign(3 * n, 0.0);
    s->pressure.assign(n, 0.0);
    s->gradient.assign(3 * n, 0.0);
    s->fluidForce.assign(3 * n, 0.0);
    // Drag forces of the spheres there are now, zero until the first exchange.
    const double spheres = number(o, "spheres");
    if (spheres >= 0 && spheres <= 1e9) s->drag.assign(3 * std::size_t(spheres), 0.0);
    s->account();
    return s;
  });
}

Napi::Value Coupler::Arrays(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  auto out = [&](std::vector<double>& v) { return exportArray<double>(env, state_, v.data(), v.size()); };
  o.Set("voidFraction", out(state_->epsilon));
  o.Set("fluidVelocity", out(state_->velocity));
  o.Set("pressure", out(state_->pressure));
  o.Set("dragForces", out(state_->drag));
  return o;
}

Napi::Value Coupler::Generation(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), generation_); }

// densestCell(positions, radii) → the smallest void fraction of a cell (uncapped) for these
// spheres, nothing kept.
Napi::Value Coupler::DensestCell(const Napi::CallbackInfo& info) {
  if (info.Length() < 2 || !peclet::isFloat64Array(info[0]) || !peclet::isFloat64Array(info[1]))
    peclet::kernelTypeError("positions", "densestCell(positions, radii) takes two Float64Arrays");
  std::vector<double> pos, rad;
  copy(info[0].As<Napi::Float64Array>(), pos);
  copy(info[1].As<Napi::Float64Array>(), rad);
  if (pos.size() != 3 * rad.size()) peclet::kernelRangeError("positions", "must hold 3 numbers per radius");
  const cp::Spheres spheres{rad.size(), pos.data(), nullptr, rad.data()};
  cp::checkSpheres(state_->grid, spheres);
  std::vector<double> solid(state_->grid.cells());
  cp::solidFraction(state_->grid, spheres, solid.data());
  double most = 0;
  for (double x : solid) most = std::max(most, x);
  return Napi::Number::New(info.Env(), 1 - most);
}

// exchange({ positions, velocities, radii, masses?, latticeVelocity, latticeDensity, velocityScale,
//            pressureScale, forceScale, drive, gravity, externalForces, latticeForce, latticePorosity })
// Everything is read and computed before anything is written: a call that
// throws changes nothing, here or in the arrays it was given.
Napi::Value Coupler::Exchange(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) peclet::kernelTypeError("options", "must be an object");
  Napi::Object o = info[0].As<Napi::Object>();
  CouplerState& s = *state_;
  const std::size_t cells = s.grid.cells();
  if (!peclet::isFloat64Array(o.Get("radii"))) peclet::kernelTypeError("radii", "must be a Float64Array");
  Napi::Float64Array radii = o.Get("radii").As<Napi::Float64Array>();
  const std::size_t n = radii.ElementLength();
  Napi::Float64Array positions = array(o, "positions", 3 * n), velocities = array(o, "velocities", 3 * n);
  const bool withMasses = !o.Get("masses").IsUndefined();
  Napi::Float64Array latticeVelocity = array(o, "latticeVelocity", 3 * cells);
  Napi::Float64Array latticeDensity = array(o, "latticeDensity", cells);
  Napi::Float64Array externalForces = array(o, "externalForces", 3 * n);
  Napi::Float64Array latticeForce = array(o, "latticeForce", 3 * cells);
  Napi::Float64Array latticePorosity = array(o, "latticePorosity", cells);
  const double velocityScale = number(o, "velocityScale"), pressureScale = number(o, "pressureScale"),
               forceScale = number(o, "forceScale");
  for (double x : {velocityScale, pressureScale, forceScale})
    if (!(x > 0 && std::isfinite(x))) peclet::kernelRangeError("scales", "must be positive numbers");
  cp::ExchangeParameters p = s.parameters;
  vector3(o, "drive", p.drivePressureGradient);
  vector3(o, "gravity", p.gravity);
  double bodyForce[3];
  vector3(o, "latticeBodyForce", bodyForce);
  p.holdFlux = !o.Get("flux").IsUndefined();
  if (p.holdFlux) vector3(o, "flux", p.flux);
  p.timestep = s.grid.cell / velocityScale;
  // The drag of the last exchange, for the self-correction (none after the
  // sphere count changed: a first exchange for these spheres).
  p.previousDrag = s.drag.size() == 3 * n ? s.drag.data() : nullptr;
  p.previousHeldDrag = s.heldDrag.size() == cells ? s.heldDrag.data() : nullptr;

  // Inputs copied (they may be views of shared memory), then checked.
  std::vector<double>&pos = s.positions, &vel = s.velocities, &rad = s.radii, &mass = s.masses;
  copy(positions, pos);
  copy(velocities, vel);
  copy(radii, rad);
  if (withMasses) copy(array(o, "masses", n), mass);
  // The contacts' and walls' force on each sphere: the DEM's force of its
  // last step less gravity and the fluid force this object gave it.
  if (withMasses && !o.Get("particleForces").IsUndefined() && s.total.size() == 3 * n) {
    copy(array(o, "particleForces", 3 * n), s.contacts);
    for (std::size_t i = 0; i < n; i++)
      for (int a = 0; a < 3; a++) s.contacts[3 * i + a] -= s.masses[i] * p.gravity[a] + s.total[3 * i + a];
    p.contactForces = s.contacts.data();
  }
  const cp::Spheres spheres{n, pos.data(), vel.data(), rad.data()};
  cp::checkSpheres(s.grid, spheres);
  const double* u = latticeVelocity.Data();
  const double* rho = latticeDensity.Data();
  for (std::size_t c = 0; c < cells; c++) {
    if (!std::isfinite(rho[c]) || !std::isfinite(u[3 * c]) || !std::isfinite(u[3 * c + 1]) ||
        !std::isfinite(u[3 * c + 2]))
      peclet::kernelRangeError("fluid", "the lattice holds a non-finite value in cell " + std::to_string(c));
  }
  // The fluid's momentum per cell: the reported velocity less the half of
  // the last step's force (εG + f, lattice units) it holds, in m/s.
  {
    const double* f = latticeForce.Data();
    const double* eps = latticePorosity.Data();
    s.momentum.resize(3 * cells);
    for (std::size_t c = 0; c < cells; c++)
      for (int a = 0; a < 3; a++)
        s.momentum[3 * c + a] = (u[3 * c + a] - 0.5 * (eps[c] * bodyForce[a] + f[3 * c + a])) * velocityScale;
    p.momentum = s.momentum.data();
  }

  // Computed into scratch buffers, copied in at the end.
  std::vector<double>&solid = s.nextSolid, &epsilon = s.nextEpsilon, &velocity = s.nextVelocity,
  &pressure = s.nextPressure, &gradient = s.nextGradient, &fluidForce = s.nextFluidForce, &drag = s.nextDrag,
  &total = s.nextTotal, &heldDrag = s.nextHeldDrag;
  solid.resize(cells), epsilon.resize(cells), velocity.resize(3 * cells), pressure.resize(cells);
  gradient.resize(3 * cells), fluidForce.resize(3 * cells), drag.resize(3 * n), total.resize(3 * n);
  heldDrag.resize(cells);
  std::vector<cp::Footprint>& footprints = s.footprints;
  footprints.resize(n);
  cp::solidFraction(s.grid, spheres, solid.data(), footprints.data());
  double meanDensity = 0;
  for (std::size_t c = 0; c < cells; c++) meanDensity += rho[c];
  meanDensity /= double(cells);
  double minEpsilon = 1, maxSolid = 0;
  std::size_t capped = 0;
  for (std::size_t c = 0; c < cells; c++) {
    const double e = 1 - solid[c];
    if (e < p.minVoidFraction) capped++;
    epsilon[c] = std::max(e, p.minVoidFraction);
    minEpsilon = std::min(minEpsilon, epsilon[c]);
    maxSolid = std::max(maxSolid, solid[c]);
    for (int a = 0; a < 3; a++) velocity[3 * c + a] = u[3 * c + a] * velocityScale;
    pressure[c] = (rho[c] - meanDensity) / 3 * pressureScale;
  }
  cp::gradient(s.grid, pressure.data(), gradient.data());
  const cp::ExchangeReport report = cp::exchange(
      s.grid, spheres, withMasses ? mass.data() : nullptr, epsilon.data(), solid.data(), velocity.data(),
      gradient.data(), p, cp::ExchangeOutput{drag.data(), total.data(), fluidForce.data(), heldDrag.data()},
      footprints.data());
  for (double f : total)
    if (!std::isfinite(f)) peclet::kernelRangeError("fluid", "the fluid force on a sphere is not finite");
  for (double f : fluidForce)
    if (!std::isfinite(f)) peclet::kernelRangeError("fluid", "the force on the fluid is not finite");
  for (double g : report.drive)
    if (!std::isfinite(g)) peclet::kernelRangeError("fluid", "the drive that holds the flux is not finite");
  // The spheres hold their drag over a fluid step (explicit for them):
  // refused when a sphere would respond faster than that.
  const double particleLimit = number(o, "maxDragRate");
  if (report.maxDragRate > particleLimit)
    peclet::kernelRangeError("dem.substeps", "the fluid step is too long for the drag now (sphere response " +
                                                 std::to_string(1 / report.maxDragRate) +
                                                 " s; the step must stay below 0.5 of it): use fewer dem substeps");

  // Commit: the object's fields (in place, under the views JS holds; a new
  // sphere count reallocates, after detaching the views), then the arrays of
  // flow and dem.
  if (drag.size() != s.drag.size()) {
    detachExports(env);
    generation_++;
  }
  auto commit = [](std::vector<double>& to, const std::vector<double>& from) {
    if (to.size() == from.size())
      std::copy(from.begin(), from.end(), to.begin());
    else
      to = from;
  };
  s.undoDrag = s.drag, s.undoTotal = s.total, s.undoHeldDrag = s.heldDrag;
  copy(latticeForce, s.undoForce);
  copy(latticePorosity, s.undoPorosity);
  commit(s.solid, solid), commit(s.epsilon, epsilon), commit(s.velocity, velocity), commit(s.pressure, pressure);
  commit(s.gradient, gradient), commit(s.fluidForce, fluidForce), commit(s.drag, drag), commit(s.total, total);
  commit(s.heldDrag, heldDrag);
  s.account();
  std::memcpy(externalForces.Data(), s.total.data(), 3 * n * sizeof(double));
  double* force = latticeForce.Data();
  for (std::size_t i = 0; i < 3 * cells; i++) force[i] = s.fluidForce[i] / forceScale;
  std::memcpy(latticePorosity.Data(), s.epsilon.data(), cells * sizeof(double));

  Napi::Object r = Napi::Object::New(env);
  r.Set("maxReynolds", report.maxReynolds);
  r.Set("maxDragRate", report.maxDragRate);
  r.Set("maxFluidDragRate", report.maxFluidDragRate);
  r.Set("minVoidFraction", minEpsilon);
  r.Set("maxSolidFraction", maxSolid);
  r.Set("cappedCells", double(capped));
  Napi::Array flux = Napi::Array::New(env, 3);
  const double boxVolume = s.grid.cellVolume() * double(cells);
  for (std::uint32_t a = 0; a < 3; a++) flux.Set(a, report.volumeFlux[a] / boxVolume);
  r.Set("particleVolumeFlux", flux);
  Napi::Array drive = Napi::Array::New(env, 3);
  for (std::uint32_t a = 0; a < 3; a++) drive.Set(a, report.drive[a]);
  r.Set("drive", drive);
  return r;
}

// undo(latticeForce, latticePorosity): puts back what the last exchange wrote
// into the lattice's arrays and its own drag state (a coupled step whose dem
// step threw). Once per exchange; the arrays must be the ones it wrote.
Napi::Value Coupler::Undo(const Napi::CallbackInfo& info) {
  CouplerState& s = *state_;
  if (info.Length() < 2 || !peclet::isFloat64Array(info[0]) || !peclet::isFloat64Array(info[1]))
    peclet::kernelTypeError("undo", "takes the lattice's force and porosity arrays");
  Napi::Float64Array force = info[0].As<Napi::Float64Array>(), porosity = info[1].As<Napi::Float64Array>();
  if (!s.undoForce.empty() && force.ElementLength() == s.undoForce.size() &&
      porosity.ElementLength() == s.undoPorosity.size()) {
    std::memcpy(force.Data(), s.undoForce.data(), s.undoForce.size() * sizeof(double));
    std::memcpy(porosity.Data(), s.undoPorosity.data(), s.undoPorosity.size() * sizeof(double));
  }
  // A new sphere count reallocated the drag: the last one no longer fits.
  if (s.undoDrag.size() == s.drag.size()) {
    std::copy(s.undoDrag.begin(), s.undoDrag.end(), s.drag.begin());
    s.total = s.undoTotal, s.heldDrag = s.undoHeldDrag;
  }
  s.undoForce.clear();
  return info.Env().Undefined();
}

Napi::Value DragCoefficient(const Napi::CallbackInfo& info) {
  if (info.Length() < 6 || !info[0].IsString()) peclet::kernelTypeError("drag", "must be a string");
  const cp::Drag drag = cp::parseDrag(info[0].As<Napi::String>().Utf8Value());
  double x[5];
  const char* names[5] = {"voidFraction", "diameter", "slip", "viscosity", "density"};
  for (int i = 0; i < 5; i++) {
    x[i] = info[i + 1].IsNumber() ? info[i + 1].As<Napi::Number>().DoubleValue() : std::nan("");
    if (!std::isfinite(x[i]) || x[i] < 0) peclet::kernelRangeError(names[i], "must be a finite number >= 0");
  }
  // The ranges of physical use (those CoupledSimulation accepts), inside which every closure stays
  // a normal double.
  if (!(x[0] >= 1e-3 && x[0] <= 1)) peclet::kernelRangeError("voidFraction", "must be in [0.001, 1]");
  if (!(x[1] >= 1e-12 && x[1] <= 1e3)) peclet::kernelRangeError("diameter", "must be in [1e-12, 1e3] m");
  if (!(x[2] <= 1e6)) peclet::kernelRangeError("slip", "must be in [0, 1e6] m/s");
  if (!(x[3] >= 1e-12 && x[3] <= 1e12)) peclet::kernelRangeError("viscosity", "must be in [1e-12, 1e12] Pa·s");
  if (!(x[4] >= 1e-9 && x[4] <= 1e9)) peclet::kernelRangeError("density", "must be in [1e-9, 1e9] kg/m³");
  const double coefficient = cp::dragCoefficient(drag, x[0], x[1], x[2], x[3], x[4]);
  if (!std::isfinite(coefficient))
    peclet::kernelRangeError("slip", "the drag of these arguments is not a finite number");
  return Napi::Number::New(info.Env(), coefficient);
}

Napi::Value LatticeResponse(const Napi::CallbackInfo& info) {
  int x[5];
  for (std::size_t i = 0; i < 5; i++) {
    const double v = info[i].IsNumber() ? info[i].As<Napi::Number>().DoubleValue() : std::nan("");
    const double lo = i < 3 ? -1 : 0, hi = i < 3 ? 1 : 2;
    if (!(v >= lo && v <= hi && v == std::floor(v)))
      peclet::kernelRangeError("latticeResponse", "takes offsets in {-1, 0, 1} and components in {0, 1, 2}",
                               std::int64_t(i));
    x[i] = int(v);
  }
  return Napi::Number::New(info.Env(), cp::latticeResponse(x[0], x[1], x[2], x[3], x[4]));
}

}  // namespace peclet_coupling
