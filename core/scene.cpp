#include "core/scene.h"

namespace tether::core {

const char* toString(Shape s) {
  switch (s) {
    case Shape::Rod: return "rod";
    case Shape::Sphere: return "sphere";
    case Shape::Torus: return "torus";
    case Shape::Box: return "box";
  }
  return "?";
}

const char* toString(PathKind k) {
  switch (k) {
    case PathKind::Line: return "line";
    case PathKind::Circle: return "circle";
    case PathKind::Spline: return "spline";
  }
  return "?";
}

const char* toString(ForceKind k) {
  switch (k) {
    case ForceKind::Spring: return "spring";
    case ForceKind::Damping: return "damping";
    case ForceKind::TorsionSpring: return "torsion_spring";
    case ForceKind::ConstantForce: return "constant_force";
    case ForceKind::ConstantTorque: return "constant_torque";
  }
  return "?";
}

const char* toString(EventAction a) {
  switch (a) {
    case EventAction::Enable: return "enable";
    case EventAction::Disable: return "disable";
    case EventAction::Create: return "create";
    case EventAction::Remove: return "remove";
    case EventAction::Set: return "set";
  }
  return "?";
}

const char* toString(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::RK4: return "rk4";
    case IntegratorKind::RK45: return "rk45";
    case IntegratorKind::SemiImplicitEuler: return "euler";
  }
  return "?";
}

const char* toString(SolverKind k) {
  switch (k) {
    case SolverKind::Auto: return "auto";
    case SolverKind::DenseSvd: return "dense-svd";
    case SolverKind::Sparse: return "sparse";
    case SolverKind::SequentialImpulses: return "sequential-impulses";
  }
  return "?";
}

const char* toString(StabilizationKind k) {
  switch (k) {
    case StabilizationKind::Tau: return "tau";
    case StabilizationKind::Baumgarte: return "baumgarte";
    case StabilizationKind::Implicit: return "implicit";
  }
  return "?";
}

std::optional<SolverKind> solverFromString(const std::string& s) {
  for (SolverKind k : {SolverKind::Auto, SolverKind::DenseSvd, SolverKind::Sparse, SolverKind::SequentialImpulses})
    if (s == toString(k)) return k;
  return std::nullopt;
}

std::optional<StabilizationKind> stabilizationFromString(const std::string& s) {
  for (StabilizationKind k : {StabilizationKind::Tau, StabilizationKind::Baumgarte, StabilizationKind::Implicit})
    if (s == toString(k)) return k;
  return std::nullopt;
}

std::optional<IntegratorKind> integratorFromString(const std::string& s) {
  for (IntegratorKind k : {IntegratorKind::RK4, IntegratorKind::RK45, IntegratorKind::SemiImplicitEuler})
    if (s == toString(k)) return k;
  return std::nullopt;
}

}  // namespace tether::core
