// Point-on-plane: a body point stays on the world plane through o with unit normal n.
//   D = n . (X_P - o) (d = 1), D1 = n . v_P, D2 = n . a_P:
//   Jl = n^T, Ja = -n^T [r]x = (r x n)^T, c = n . (w x (w x r)).
// Force by virtual work: n Fc at P (normal to the plane; the point slides freely on it).
#pragma once
#include "core/constraint.h"
#include "core/constraint_type.h"

namespace tether::core {

class PointOnPlane final : public Constraint {
 public:
  PointOnPlane(Anchor point, Vec3 origin, Vec3 normal) : m_point(point), m_origin(origin), m_n(normal.normalized()) {}
  int rows() const override { return 1; }
  BodyList bodies() const override { return {m_point.index}; }
  void evaluate(const EvalContext& ctx, ConstraintRows& out) const override;
  bool seesOnlyAxis(int b, const Vec3& e) const override { return onAxisOf(m_point, b, e); }
  bool pinsToWorld() const override { return true; }

 private:
  Anchor m_point;
  Vec3 m_origin;  // world, m
  Vec3 m_n;       // unit
};

// The definition's parameters (ConstraintDef::params; the file's keys, core/constraint_type.h).
// A body point kept on the world plane through origin normal to normal.
struct PointOnPlaneDef {
  PointRef point;
  Vec3 origin = Vec3::Zero();   // world, m
  Vec3 normal = Vec3::UnitZ();  // world
  static const ConstraintType& type();  // the type's row in constraintTypes()
  bool operator==(const PointOnPlaneDef&) const = default;
};

// A small grid in the plane of the given normal around g.at (5 lines each way, 0.1 span across).
std::vector<GuideSegment> planeGrid(const Vec3& normal, const GuideContext& g);

}  // namespace tether::core
