#include "contact_law.hpp"

#include <cmath>
#include <map>
#include <mutex>

namespace peclet::dem {

namespace {

struct State {
  double y, v;
};

State derivative(const State& s, double alpha) {
  // Near separation y can dip a hair below 0 inside an RK stage.
  const double y = s.y > 0.0 ? s.y : 0.0;
  return {s.v, -y * std::sqrt(y) - alpha * std::sqrt(std::sqrt(y)) * s.v};
}

}  // namespace

double hertzRestitutionForDamping(double alpha, double* contactTime) {
  // The δ^{1/4} factor is not smooth at y = 0, so use small steps.
  const double h = 2e-4;
  State s{0.0, 1.0};
  double t = 0.0;
  for (int i = 0; i < 2'000'000; ++i) {
    auto k1 = derivative(s, alpha);
    auto k2 = derivative({s.y + 0.5 * h * k1.y, s.v + 0.5 * h * k1.v}, alpha);
    auto k3 = derivative({s.y + 0.5 * h * k2.y, s.v + 0.5 * h * k2.v}, alpha);
    auto k4 = derivative({s.y + h * k3.y, s.v + h * k3.v}, alpha);
    State next{s.y + h / 6.0 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y),
               s.v + h / 6.0 * (k1.v + 2 * k2.v + 2 * k3.v + k4.v)};
    if (next.y <= 0.0 && t > 0.0) {
      // Interpolate linearly to the crossing for the exit speed and time.
      const double f = s.y / (s.y - next.y);
      if (contactTime) *contactTime = t + f * h;
      return -(s.v + f * (next.v - s.v));
    }
    s = next;
    t += h;
  }
  if (contactTime) *contactTime = t;
  return 0.0;
}

namespace {

// Root of e(α) = restitution by the Illinois variant of regula falsi on
// ln e(α), which is close to linear in α: 3–6 integrations instead of the 40+
// of a bisection. Converges to |ln e − ln restitution| < 1e-10.
HertzDamping solveHertzDamping(double restitution) {
  HertzDamping result;
  if (restitution >= 1.0) {
    hertzRestitutionForDamping(0.0, &result.dimensionlessContactTime);
    return result;
  }
  const double target = std::log(restitution);
  double lastAlpha = -1.0, lastContactTime = 0.0;
  auto f = [&](double alpha) {
    lastAlpha = alpha;
    return std::log(hertzRestitutionForDamping(alpha, &lastContactTime)) - target;
  };
  // A fit of the solution, α ≈ L / (1.41 + 0.05·L + 0.04·L²) with
  // L = −ln e, is within 2 % for e in [0.01, 0.99]: start there and widen by
  // 5 %, then 10 %, 22 %, ... to a bracket.
  const double L = -target;
  double lo = L / (1.41 + 0.05 * L + 0.04 * L * L), fLo = f(lo);
  double hi = lo, fHi = fLo;
  for (double step = 1.05; (fLo > 0.0) == (fHi > 0.0) && hi < 1e3 && lo > 1e-300; step *= step) {
    if (fHi > 0.0) {  // α too small: move up
      lo = hi;
      fLo = fHi;
      hi *= step;
      fHi = f(hi);
    } else {
      hi = lo;
      fHi = fLo;
      lo /= step;
      fLo = f(lo);
    }
  }
  int side = 0;
  double alpha = hi;
  for (int i = 0; i < 100; ++i) {
    alpha = (lo * fHi - hi * fLo) / (fHi - fLo);
    if (!(alpha > lo && alpha < hi)) alpha = 0.5 * (lo + hi);
    const double fAlpha = f(alpha);
    if (std::fabs(fAlpha) < 1e-10 || hi - lo < 1e-14 * hi) break;
    if (fAlpha > 0.0) {
      lo = alpha;
      fLo = fAlpha;
      if (side == -1) fHi *= 0.5;
      side = -1;
    } else {
      hi = alpha;
      fHi = fAlpha;
      if (side == 1) fLo *= 0.5;
      side = 1;
    }
  }
  result.alpha = alpha;
  if (lastAlpha == alpha)
    result.dimensionlessContactTime = lastContactTime;
  else
    hertzRestitutionForDamping(result.alpha, &result.dimensionlessContactTime);
  return result;
}

}  // namespace

HertzDamping hertzDampingFromRestitution(double restitution) {
  // Process-wide memo: a simulation is usually created many times with the
  // same restitution, and each solve integrates the collision several times.
  static std::mutex mutex;
  static std::map<double, HertzDamping> memo;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = memo.find(restitution);
    if (found != memo.end()) return found->second;
  }
  const HertzDamping result = solveHertzDamping(restitution);
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() < 4096) memo.emplace(restitution, result);
  return result;
}

ContactLaw ContactLaw::fromOptions(const ContactOptions& options) {
  ContactLaw law;
  law.model = options.model;
  law.friction = options.friction;
  law.restitution = options.restitution;
  const double pi = 3.14159265358979323846;
  if (options.model == ContactModelKind::Linear) {
    const double logE = std::log(options.restitution);
    const double zeta = -logE / std::sqrt(pi * pi + logE * logE);
    law.normalStiffness = options.stiffness;
    law.tangentialStiffness = options.stiffness * options.tangentialStiffnessRatio;
    law.normalDampingScale = 2.0 * zeta * std::sqrt(law.normalStiffness);
    law.tangentialDampingScale = 2.0 * zeta * std::sqrt(law.tangentialStiffness);
  } else {
    const double nu = options.poissonRatio;
    const double shear = options.youngsModulus / (2.0 * (1.0 + nu));
    law.effectiveModulus = options.youngsModulus / (2.0 * (1.0 - nu * nu));
    law.effectiveShearModulus = shear / (2.0 * (2.0 - nu));
    const HertzDamping damping = hertzDampingFromRestitution(options.restitution);
    law.hertzAlpha = damping.alpha;
    law.hertzContactTime = damping.dimensionlessContactTime;
  }
  return law;
}

double ContactLaw::contactTime(double reducedMass, double reducedRadius, double impactSpeed) const {
  const double pi = 3.14159265358979323846;
  if (model == ContactModelKind::Linear) {
    const double omega0 = std::sqrt(normalStiffness / reducedMass);
    const double beta = normalDampingScale / (2.0 * std::sqrt(reducedMass));
    return pi / std::sqrt(omega0 * omega0 - beta * beta);
  }
  // Scale the dimensionless solution: δ = A·y, t = T·s with
  // T² = m*/(k·√A) and A/T = v, k = 4/3·E*·√R*.
  const double k = 4.0 / 3.0 * effectiveModulus * std::sqrt(reducedRadius);
  const double amplitude = std::pow(impactSpeed * std::sqrt(reducedMass / k), 0.8);
  const double timeScale = std::sqrt(reducedMass / (k * std::sqrt(amplitude)));
  return hertzContactTime * timeScale;
}

double ContactLaw::normalElasticEnergy(double overlap, double reducedRadius) const {
  if (overlap <= 0.0) return 0.0;
  if (model == ContactModelKind::Linear) return 0.5 * normalStiffness * overlap * overlap;
  const double k = 4.0 / 3.0 * effectiveModulus * std::sqrt(reducedRadius);
  return 0.4 * k * overlap * overlap * std::sqrt(overlap);
}

}  // namespace peclet::dem
