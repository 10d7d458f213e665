// The JS class Coupler: the native state between a flow lattice and a DEM
// simulation (the fields of the divided kernel and the drag of each sphere),
// handed to JS as zero-copy typed arrays.
#pragma once

#include <memory>
#include <peclet/peclet.hpp>
#include <vector>

#include "../coupling.hpp"

namespace peclet_coupling {

/// Native state shared by the object and its exported arrays.
struct CouplerState {
  explicit CouplerState(std::uint64_t env) : ledger("Coupler", env, 0) {}
  peclet::coupling::Grid grid;
  peclet::coupling::ExchangeParameters parameters;
  std::vector<double> solid, epsilon, velocity, pressure, gradient, fluidForce, heldDrag;  // per cell
  std::vector<double> drag, total;                                                         // 3 per sphere
  std::vector<double> positions, velocities, radii, masses, contacts;                      // copies of the inputs
  // Scratch of an exchange, reused from call to call (fresh memory is slow to touch).
  std::vector<double> nextSolid, nextEpsilon, nextVelocity, nextPressure, nextGradient, nextFluidForce, nextDrag,
      nextTotal, nextHeldDrag;
  // What the last exchange overwrote, for undo(): the lattice's force and
  // porosity arrays, and this object's drag, totals and held drag.
  std::vector<double> undoForce, undoPorosity, undoDrag, undoTotal, undoHeldDrag, momentum;
  std::vector<peclet::coupling::Footprint> footprints;
  peclet::LedgerEntry ledger;
  void account();
};

class Coupler : public peclet::Object<Coupler> {
 public:
  static constexpr const char* ClassName = "CoupledSimulation";
  static Napi::Function Init(Napi::Env env);
  explicit Coupler(const Napi::CallbackInfo& info);

 protected:
  void dropNative() noexcept override { state_.reset(); }

 private:
  Napi::Value Arrays(const Napi::CallbackInfo& info);
  Napi::Value Generation(const Napi::CallbackInfo& info);
  Napi::Value Exchange(const Napi::CallbackInfo& info);
  Napi::Value DensestCell(const Napi::CallbackInfo& info);
  Napi::Value Undo(const Napi::CallbackInfo& info);

  std::shared_ptr<CouplerState> state_;
  double generation_ = 0;
};

/// dragCoefficient(drag, voidFraction, diameter, slip, viscosity, density) → kg/s
Napi::Value DragCoefficient(const Napi::CallbackInfo& info);

/// latticeResponse(dx, dy, dz, a, b) → the self-correction's table (for its
/// test against the lattice; not part of the package's API).
Napi::Value LatticeResponse(const Napi::CallbackInfo& info);

}  // namespace peclet_coupling
