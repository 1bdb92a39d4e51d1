#include "core/constraint_issues.h"

#include <algorithm>
#include <set>

#include "core/constraint.h"
#include "core/model.h"
#include "core/stability.h"

namespace tether::core {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// "a", "a" and "b", "a", "b" and "c"; past four: "a", "b", "c", "d" and 3 others
std::string nameList(const std::vector<std::string>& names) {
  constexpr size_t kShown = 4;
  std::vector<std::string> items;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) items.push_back("\"" + names[i] + "\"");
  if (names.size() > kShown) items.push_back(std::to_string(names.size() - kShown) + " others");
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace

std::vector<ConstraintIssue> constraintIssues(const Scene& scene) { return constraintIssues(scene, checkScene(scene)); }

std::vector<ConstraintIssue> constraintIssues(const Scene& scene, const CheckReport& report) {
  std::vector<ConstraintIssue> out;
  if (report.conflicting.empty() && report.redundant.empty()) return out;
  // the moving bodies each definition pushes, to name a flagged constraint's partners: the
  // others flagged alike that share a moving body with it (the analysis knows only the groups)
  const Model model = compile(scene);
  std::vector<std::set<int>> bodiesOf(scene.constraints.size());
  for (size_t part = 0; part < model.constraints.size(); ++part)
    for (int b : model.constraints[part]->bodies())
      if (b >= 0 && !model.bodies[size_t(b)].fixed) bodiesOf[size_t(model.constraintDef[part])].insert(b);
  auto partners = [&](size_t def, const std::vector<std::string>& flagged) {
    std::vector<std::string> near, all;
    for (size_t k = 0; k < scene.constraints.size(); ++k) {
      if (k == def || !contains(flagged, scene.constraints[k].name)) continue;
      all.push_back(scene.constraints[k].name);
      for (int b : bodiesOf[k])
        if (bodiesOf[def].count(b)) {
          near.push_back(scene.constraints[k].name);
          break;
        }
    }
    return near.empty() ? all : near;
  };
  // A chain's shape (drawn straight, stretched to its reach, out of reach: stabilityWarnings)
  // flags its joints although none is too many: a helper's five rods drawn straight between two
  // nails were all marked, and told to use a hinge. Such a joint is told the chain's warning.
  const std::vector<StabilityWarning> warnings = stabilityWarnings(scene);
  auto chainOf = [&](size_t def) -> const StabilityWarning* {
    if (bodiesOf[def].empty()) return nullptr;
    for (const StabilityWarning& w : warnings) {
      if (!w.geometric || w.bodies.empty()) continue;
      bool in = true;
      for (int b : bodiesOf[def]) in = in && contains(w.bodies, model.bodyNames[size_t(b)]);
      if (in) return &w;
    }
    return nullptr;
  };
  for (size_t d = 0; d < scene.constraints.size(); ++d) {
    const std::string& name = scene.constraints[d].name;
    ConstraintIssue issue;
    issue.name = name;
    issue.conflicting = contains(report.conflicting, name);
    issue.redundant = contains(report.redundant, name);
    if (!issue.conflicting && !issue.redundant) continue;
    if (const StabilityWarning* chain = chainOf(d)) {
      const std::vector<std::string> p = partners(d, issue.conflicting ? report.conflicting : report.redundant);
      issue.reason = std::string(issue.conflicting ? "Conflicting" : "Redundant") +
                     " (tether-cli check, at t = 0), with " + (p.empty() ? std::string("the chain's other joints") : nameList(p)) +
                     ", because of the chain's shape, not because it has a joint too many: " +
                     chain->message.substr(std::min(chain->message.size(), chain->place.size() + 2));
      out.push_back(std::move(issue));
      continue;
    }
    if (issue.conflicting) {
      const std::vector<std::string> p = partners(d, report.conflicting);
      issue.reason = "Conflicting (tether-cli check, at t = 0 and still once the model has had time to assemble): "
                     "its equations cannot all be met together with " +
                     (p.empty() ? std::string("the others on its bodies") : "those of " + nameList(p)) +
                     "; the solver meets them only as nearly as it can, so the joints pull against each other and "
                     "open. Remove one of them or hold fewer directions (a point-on-line instead of a point-to-point).";
    }
    if (issue.redundant) {
      const std::vector<std::string> p = partners(d, report.redundant);
      if (!issue.reason.empty()) issue.reason += "\n";
      issue.reason += "Redundant (tether-cli check, at t = 0): its rows repeat what " +
                      (p.empty() ? std::string("other constraints") : nameList(p)) +
                      " already hold, so the constraint matrix M is singular and every step takes the slower dense "
                      "SVD. Where the mechanism needs them all (a crank pinned and driven round, a closed linkage of "
                      "hinges), they agree and it runs as it is (Settings > Solver: sparse takes its step faster); "
                      "else remove the extra constraint (use a hinge instead of two point joints).";
    }
    out.push_back(std::move(issue));
  }
  return out;
}

}  // namespace tether::core
