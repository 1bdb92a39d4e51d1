// Diagnostics of the constraint-force equation: which constraints are involved in a rank
// deficiency of M (redundant) and which equations cannot be met together (conflicting), as
// tether-cli check and the GUI report them. Allocates: for reports, not the step loop.
#pragma once

#include <vector>

#include "core/constraint_assembly.h"
#include "core/constraint_solvers.h"

namespace tether::core {

struct ConflictReport {
  int rank = 0;                  // of the analysed rows
  int unanalysedRows = 0;        // rows in groups larger than kRankAnalysisLimit (not analysed)
  std::vector<int> redundant;    // constraint indices whose rows are linearly dependent
  std::vector<int> conflicting;  // constraint indices whose equations are left unsatisfied
};

// A group of constraints joined through shared bodies is analysed by a full SVD up to this
// many rows (1 500: about 3 s and 60 MB); larger singular groups are reported as not analysed.
// Groups the fast paths factor are never analysed: they have full rank.
inline constexpr int kRankAnalysisLimit = 1500;

// The analysis of the system last solved (report: that solve's; B: its right-hand side).
ConflictReport analyseConflicts(const ConstraintAssembly& a, const Eigen::VectorXd& B, const SolveReport& report);

}  // namespace tether::core
