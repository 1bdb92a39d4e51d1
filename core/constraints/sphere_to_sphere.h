// Sphere-to-sphere: two spheres touch and may slide on each other. Their centres stay
// r1 + r2 apart: the distance constraint between the centres with L = r1 + r2
// (r = 0 offsets, so c reduces to (|u|^2 - (n . u)^2) / |x2 - x1|). The force acts along the
// line of centres, through both centres: no torque, so the spheres slide and spin freely.
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class SphereToSphere final : public Constraint {
 public:
  SphereToSphere(int a, int b, double radiusSum) : m_a(a), m_b(b), m_radiusSum(radiusSum) {}
  int rows() const override { return 1; }
  BodyList bodies() const override { return {m_a, m_b}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool rowsTurnOnTheirOwn() const override { return true; }
  double turnRate(const EvalContext& ctx) const override;

 private:
  int m_a, m_b;
  double m_radiusSum;  // m
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// Two sphere bodies kept touching.
struct SphereToSphereDef {
  std::string bodyA, bodyB;
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const SphereToSphereDef&) const = default;
};

}  // namespace tether::core
