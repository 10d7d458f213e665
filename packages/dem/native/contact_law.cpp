#include "contact_law.hpp"

#include <cmath>

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

HertzDamping hertzDampingFromRestitution(double restitution) {
  HertzDamping result;
  if (restitution >= 1.0) {
    hertzRestitutionForDamping(0.0, &result.dimensionlessContactTime);
    return result;
  }
  double lo = 0.0, hi = 1.0;
  while (hertzRestitutionForDamping(hi) > restitution && hi < 1e3) hi *= 2.0;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (hertzRestitutionForDamping(mid) > restitution)
      lo = mid;
    else
      hi = mid;
  }
  result.alpha = 0.5 * (lo + hi);
  hertzRestitutionForDamping(result.alpha, &result.dimensionlessContactTime);
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
