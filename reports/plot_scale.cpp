#include "reports/plot_scale.h"

#include <cmath>

#include "reports/svg_document.h"

namespace locksim::reports {

double LinearScale::operator()(double value) const {
  if (data_high == data_low) return (pixel_low + pixel_high) / 2;
  return pixel_low + (value - data_low) / (data_high - data_low) * (pixel_high - pixel_low);
}

std::vector<double> round_ticks(double low, double high, int wanted, bool whole_numbers) {
  std::vector<double> ticks;
  if (!(high > low) || wanted < 2) return {low};
  const double rough = (high - low) / (wanted - 1);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power * 10;
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (power * factor >= rough) {
      step = power * factor;
      break;
    }
  }
  if (whole_numbers && step < 1) step = 1;
  // Multiples of the step, counted in integers so no error accumulates.
  const auto first = static_cast<long long>(std::ceil(low / step - 1e-9));
  const auto last = static_cast<long long>(std::floor(high / step + 1e-9));
  for (long long index = first; index <= last; ++index) ticks.push_back(static_cast<double>(index) * step);
  return ticks;
}

std::string tick_label(double value) { return svg_number(value); }

std::string_view kind_colour(checker::ViolationKind kind) {
  switch (kind) {
    case checker::ViolationKind::kDoubleGrant: return "#d62728";
    case checker::ViolationKind::kDoubleHolder: return "#ff7f0e";
    case checker::ViolationKind::kStaleWrite: return "#1f77b4";
    case checker::ViolationKind::kForeignRelease: return "#9467bd";
    case checker::ViolationKind::kStuckLock: return "#8c564b";
    case checker::ViolationKind::kLostUpdate: return "#2ca02c";
    case checker::ViolationKind::kDuplicateEffect: return "#e377c2";
    case checker::ViolationKind::kTokenOrder: return "#7f7f7f";
  }
  return "#000000";
}

}  // namespace locksim::reports
