// The point part of a constraint (Jolt's PointConstraintPart is the model): the rows of a point
// pair D = p2 - p1 on the bodies that carry p1 and p2 (point-to-point, -nail and -path, and the
// point of a hinge), kept implicit.
//
// A point at the world offset r from its body's centre moves with dp/dt = v - [r]x w
// (core/constraint_parts.h), so the slot of the body carrying p_s has
//   Jl = u 1,  Ja = -u [r]x = [a]x,   u = +1 for p2, -1 for p1,   a = -u r,
// one sign and one vector instead of two 3 x 3 blocks. Its products are
//   Jl x = u x,  Ja x = a x x,  Jl^T x = u x,  Ja^T x = -[a]x x = x x a,
// its share of J W J^T between two such slots (a, u_a) and (b, u_b) on one body
//   u_a u_b / m 1 + [a]x I^-1 [b]x^T,
// and its velocity-product term u w x (w x r) = -w x (w x a).
// At 10 000 constraints the step waits on memory: the solver reads this part (with the rows'
// header, D and D1) from the first two cache lines of ConstraintRows and never the blocks.
// Every other type fills plain d x 3 blocks (ConstraintRows::Jl, Ja) and leaves this empty.
#pragma once

#include "core/math.h"

namespace tether::core {

struct PointConstraintPart {
  signed char unit[2] = {0, 0};  // per slot: u, or 0 (the slot's blocks are written out instead)
  // an end not on a moving body has an acceleration of its own (a path's point): c holds it
  // besides the slots' velocity-product terms (fills padding: the layout is unchanged)
  bool anchorAccelerates = false;
  Vec3 arm[2];                   // per slot with u != 0: a = -u r

  bool has(int s) const { return unit[s] != 0; }
  // both of the constraint's nb slots (1 or 2) are point slots
  bool whole(int nb) const { return nb > 0 && unit[0] && (nb == 1 || unit[1]); }
  double sign(int s) const { return double(unit[s]); }
  // a (the skew vector of Ja = [a]x)
  const Vec3& skewArm(int s) const { return arm[s]; }

  Vec3 jl(int s, const Vec3& x) const { return Vec3(sign(s) * x); }
  Vec3 ja(int s, const Vec3& x) const { return Vec3(arm[s].cross(x)); }
  Vec3 jlT(int s, const Vec3& x) const { return Vec3(sign(s) * x); }
  Vec3 jaT(int s, const Vec3& x) const { return Vec3(x.cross(arm[s])); }
  Mat3 jlBlock(int s) const { return Mat3(sign(s) * Mat3::Identity()); }
  Mat3 jaBlock(int s) const { return skew(arm[s]); }

  // J [a; alpha] of slot s: u a + a x alpha
  Vec3 acceleration(int s, const Vec3& a, const Vec3& alpha) const { return sign(s) * a + arm[s].cross(alpha); }
  // slot s's velocity-product term at the angular velocity w: u w x (w x r) = -w x (w x a)
  Vec3 centripetal(int s, const Vec3& w) const { return -pointAcceleration(w, arm[s]); }
  // the force and torque J^T fc on slot s's body: (u fc, fc x a)
  void addForce(int s, const Vec3& fc, Vec3& F, Vec3& T) const {
    F += sign(s) * fc;
    T += fc.cross(arm[s]);
  }
};

}  // namespace tether::core
