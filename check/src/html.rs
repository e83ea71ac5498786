//! A report as one self-contained HTML file: the table and SVG charts drawn with plotters (no
//! scripts, no network). [`Report::html`](crate::Report::html) writes a check's; the
//! `hardpack audit` command writes its own from the same [`Entry`] rows.

use std::collections::BTreeMap;

use plotters::prelude::*;

use hardpack::Limit;

use crate::human_bytes;

/// One decode of a report, as the page shows it.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The payload: its file or its id.
    pub name: String,
    /// Its size.
    pub input_bytes: usize,
    /// What the decode did, in a word: its series on the chart (`accepted`, `refused`, or
    /// how it broke).
    pub outcome: String,
    /// The error, the limit that refused it, or why it broke.
    pub detail: String,
    /// The most heap the decode held at once.
    pub peak_heap_bytes: usize,
    /// Allocations the decode made.
    pub allocations: usize,
    /// The deepest nesting the decode reached, when known.
    pub depth_reached: Option<usize>,
    /// How long the decode took, in microseconds.
    pub elapsed_us: f64,
    /// In a sweep: the value of the swept limit.
    pub limit_value: Option<usize>,
    /// The decode broke: the row is marked.
    pub broken: bool,
}

impl Entry {
    /// Peak heap per input byte (an empty input counts as one byte).
    pub fn amplification(&self) -> f64 {
        self.peak_heap_bytes as f64 / self.input_bytes.max(1) as f64
    }

    fn accepted(&self) -> bool {
        matches!(self.outcome.as_str(), "accepted" | "decoded")
    }
}

/// `s` with the characters HTML gives a meaning escaped.
pub(crate) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A payload's name in a legend: the last two parts of a path.
fn short_name(name: &str) -> String {
    let parts: Vec<&str> = name.rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The top of a log axis: the largest value (at least 2) times `margin`.
fn upper_bound(values: impl Iterator<Item = usize>, margin: f64) -> f64 {
    values.max().unwrap_or(2).max(2) as f64 * margin
}

/// Where a heap of 0 bytes is drawn: a log axis has no 0, so zero sits on the axis's bottom
/// edge, half a byte, and is labelled `0 B` there.
const ZERO_HEAP: f64 = 0.5;

/// A heap size on a log axis (0 at [`ZERO_HEAP`]).
fn heap_coord(bytes: usize) -> f64 {
    if bytes == 0 {
        ZERO_HEAP
    } else {
        bytes as f64
    }
}

/// A tick label of a byte axis: `0 B` at the zero edge, else `512 B`, `64 KiB`, `1.5 MiB`
/// (no `.0`). The log axes have base 2, so their ticks fall on powers of two and the labels
/// are round.
fn bytes_tick(v: f64) -> String {
    if v < 1.0 {
        return "0 B".to_string();
    }
    human_bytes(v.round() as usize).replace(".0 ", " ")
}

/// The part of the line y = factor * x that lies inside [x0, x1] x [y0, y1], as its two ends
/// (`None` when it misses the box): clipping must keep the slope, so both ends move along
/// the line, not only the one that leaves the box.
fn clipped_line(
    factor: f64,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Option<[(f64, f64); 2]> {
    let start = x0.max(y0 / factor);
    let end = x1.min(y1 / factor);
    (start < end).then_some([(start, start * factor), (end, end * factor)])
}

/// Peak heap against input size, log-log, a series per outcome.
pub fn peak_vs_input_svg(rows: &[Entry]) -> Result<String, String> {
    memory_vs_input_svg(
        rows,
        &MemoryChart {
            caption: "Peak heap against input size (each point a payload)",
            y_desc: "peak heap bytes (0 B on the bottom edge)",
            value_lines: true,
            floor: None,
        },
    )
}

/// What a chart of memory against input size says about its memory figure.
pub struct MemoryChart<'a> {
    /// The title.
    pub caption: &'a str,
    /// The memory axis's description.
    pub y_desc: &'a str,
    /// Draw the lines of 1 and 24 bytes per input byte (one `Value` per byte), which mean
    /// something for a heap figure of hardpack's own.
    pub value_lines: bool,
    /// A horizontal line: the figure below which differences are noise, and its label.
    pub floor: Option<(usize, &'a str)>,
}

/// A memory figure (each [`Entry`]'s `peak_heap_bytes`) against input size, log-log, a series
/// per outcome.
pub fn memory_vs_input_svg(rows: &[Entry], chart_of: &MemoryChart<'_>) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let max_x = upper_bound(rows.iter().map(|r| r.input_bytes), 2.0);
        let floor_bytes = chart_of.floor.map_or(0, |(bytes, _)| bytes);
        let max_y = upper_bound(
            rows.iter()
                .map(|r| r.peak_heap_bytes)
                .chain(std::iter::once(floor_bytes)),
            2.0,
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(chart_of.caption, ("sans-serif", 20))
            .margin(12)
            .margin_right(40)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (1f64..max_x).log_scale().base(2.0),
                (ZERO_HEAP..max_y).log_scale().base(2.0),
            )
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("input bytes")
            .y_desc(chart_of.y_desc)
            .x_label_formatter(&|v| bytes_tick(*v))
            .y_label_formatter(&|v| bytes_tick(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        let mut outcomes: Vec<&str> = Vec::new();
        for r in rows {
            if !outcomes.contains(&r.outcome.as_str()) {
                outcomes.push(&r.outcome);
            }
        }
        // Accepted blue, refused orange, anything that broke in the reds and purples.
        let mut broken_colors = [PALETTE[3], PALETTE[5], PALETTE[6], PALETTE[7]]
            .into_iter()
            .cycle();
        for status in outcomes {
            let color = match status {
                "accepted" | "decoded" => PALETTE[0],
                "refused" | "rejected" => PALETTE[1],
                _ => broken_colors.next().unwrap_or(PALETTE[3]),
            };
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.outcome == status)
                .map(|r| (r.input_bytes.max(1) as f64, heap_coord(r.peak_heap_bytes)))
                .collect();
            if points.is_empty() {
                continue;
            }
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 4, color.filled())),
                )
                .map_err(|e| e.to_string())?
                .label(status)
                .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
        }
        if let Some((bytes, label)) = chart_of.floor {
            let style = ShapeStyle::from(&BLACK.mix(0.5)).stroke_width(1);
            let ends = [(1.0, bytes as f64), (max_x, bytes as f64)];
            chart
                .draw_series(DashedLineSeries::new(ends, 4, 4, style))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], style));
        }
        // Reference lines: 1x and 24x the input (one Value per input byte), each its own colour.
        let value_lines = [
            (1.0, "1 byte per input byte", PALETTE[2]),
            (24.0, "24 bytes per input byte (one Value)", PALETTE[4]),
        ];
        let drawn = if chart_of.value_lines {
            &value_lines[..]
        } else {
            &[]
        };
        for &(factor, label, color) in drawn {
            let Some(ends) = clipped_line(factor, (1.0, max_x), (1.0, max_y)) else {
                continue;
            };
            let style = ShapeStyle::from(&color).stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(ends, 8, 5, style))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], style));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A sweep point: limit value, peak heap, decoded.
type SweepPoint = (f64, f64, bool);

/// In a sweep: peak heap against the limit's value, one line per payload (the eight with the
/// highest peak), and the budget line when the swept limit is `max_alloc_bytes`.
pub fn sweep_svg(rows: &[Entry], limit: Limit) -> Result<String, String> {
    let mut by_path: BTreeMap<String, Vec<SweepPoint>> = BTreeMap::new();
    for r in rows {
        if let Some(v) = r.limit_value {
            by_path.entry(short_name(&r.name)).or_default().push((
                v.max(1) as f64,
                heap_coord(r.peak_heap_bytes),
                r.accepted(),
            ));
        }
    }
    let mut series: Vec<(String, Vec<SweepPoint>)> = by_path.into_iter().collect();
    series.sort_by(|a, b| {
        let peak = |s: &Vec<SweepPoint>| s.iter().map(|p| p.1).fold(0.0, f64::max);
        peak(&b.1).total_cmp(&peak(&a.1))
    });
    series.truncate(8);
    let max_x = upper_bound(rows.iter().filter_map(|r| r.limit_value), 1.5);
    let max_y = upper_bound(rows.iter().map(|r| r.peak_heap_bytes), 2.0);
    let min_x = rows
        .iter()
        .filter_map(|r| r.limit_value)
        .min()
        .unwrap_or(1)
        .max(1) as f64
        / 1.5;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "Peak heap against {} (filled: decoded, hollow: refused)",
                    limit.name()
                ),
                ("sans-serif", 20),
            )
            .margin(12)
            .margin_right(40)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(
                (min_x..max_x).log_scale().base(2.0),
                (ZERO_HEAP..max_y).log_scale().base(2.0),
            )
            .map_err(|e| e.to_string())?;
        let is_bytes = limit.counts_bytes();
        chart
            .configure_mesh()
            .x_desc(limit.name())
            .y_desc("peak heap bytes (0 B on the bottom edge)")
            .x_label_formatter(&|v| {
                if is_bytes {
                    bytes_tick(*v)
                } else {
                    format!("{}", v.round() as usize)
                }
            })
            .y_label_formatter(&|v| bytes_tick(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        if limit == Limit::AllocBytes {
            if let Some(ends) = clipped_line(1.0, (min_x, max_x), (1.0, max_y)) {
                chart
                    .draw_series(LineSeries::new(ends, BLACK.stroke_width(3)))
                    .map_err(|e| e.to_string())?
                    .label("the budget (peak must stay on or under it)")
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 15, y)], BLACK.stroke_width(3))
                    });
            }
        }
        for (i, (name, mut points)) in series.into_iter().enumerate() {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p.0, p.1)),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 15, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|p| {
                    let style = if p.2 {
                        color.filled()
                    } else {
                        color.stroke_width(2)
                    };
                    Circle::new((p.0, p.1), 4, style)
                }))
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The whole page: `title`, `summary` (one line, e.g. the command that made it), the charts
/// (a sweep's when `sweep` names the limit swept) and every entry, by amplification.
/// One self-contained page: the summary, the charts and every decode by amplification.
pub fn page(
    title: &str,
    summary: &str,
    rows: &[Entry],
    sweep: Option<Limit>,
) -> Result<String, String> {
    page_with(title, summary, "", rows, sweep)
}

/// [`page`], with `section` (HTML) after the summary: a check's verdict and ledger.
pub fn page_with(
    title: &str,
    summary: &str,
    section: &str,
    rows: &[Entry],
    sweep: Option<Limit>,
) -> Result<String, String> {
    let mut sorted: Vec<&Entry> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        b.amplification()
            .total_cmp(&a.amplification())
            .then(a.name.cmp(&b.name))
    });
    // A payload not run broke nothing: the check failed before it (its failure says why).
    let not_run = rows.iter().filter(|r| r.outcome == "not_run").count();
    let broken = rows
        .iter()
        .filter(|r| r.broken && r.outcome != "not_run")
        .count();
    let worst = sorted
        .first()
        .map(|r| {
            format!(
                "{:.1}x ({})",
                r.amplification(),
                escape(&short_name(&r.name))
            )
        })
        .unwrap_or_default();
    let mut html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title><style>\
         body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;font-size:13px}}\
         td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}td.l,th.l{{text-align:left}}\
         tr.bad{{background:#fdd}}h1{{font-size:22px}}.summary{{font-size:15px;margin:1em 0}}</style></head><body>\n",
        escape(title)
    );
    html += &format!("<h1>{}</h1>\n", escape(title));
    html += &format!(
        "<p class=\"summary\">{}<br>{} decodes, {} broke it{}; worst amplification {}</p>\n",
        escape(summary),
        rows.len(),
        broken,
        if not_run > 0 {
            format!(", {not_run} not run")
        } else {
            String::new()
        },
        worst
    );
    html += section;
    if let Some(limit) = sweep {
        html += &format!(
            "<h2>Sweep over {}</h2>\n{}\n",
            limit.name(),
            sweep_svg(rows, limit)?
        );
    }
    html += &format!(
        "<h2>Peak heap against input size</h2>\n{}\n",
        peak_vs_input_svg(rows)?
    );
    html += "<h2>Every decode, by amplification</h2>\n<table><tr><th>amplification</th><th>input</th><th>peak heap</th><th>allocations</th><th>depth</th><th>time µs</th><th class=\"l\">outcome</th><th class=\"l\">detail</th>";
    if sweep.is_some() {
        html += "<th>limit value</th>";
    }
    html += "<th class=\"l\">payload</th></tr>\n";
    for r in sorted {
        html += &format!(
            "<tr{}><td>{:.1}x</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>{}<td class=\"l\">{}</td></tr>\n",
            if r.broken { " class=\"bad\"" } else { "" },
            r.amplification(),
            human_bytes(r.input_bytes),
            human_bytes(r.peak_heap_bytes),
            r.allocations,
            r.depth_reached.map(|d| d.to_string()).unwrap_or_default(),
            r.elapsed_us,
            escape(&r.outcome),
            escape(&r.detail),
            r.limit_value.map(|v| format!("<td>{v}</td>")).unwrap_or_default(),
            escape(&r.name)
        );
    }
    html += "</table>\n</body></html>\n";
    Ok(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clipped_line_keeps_its_slope() {
        // y = 24x in a box whose top cuts it: the end moves left along the line.
        let [a, b] = clipped_line(24.0, (1.0, 1000.0), (1.0, 2400.0)).unwrap();
        assert_eq!(a, (1.0, 24.0));
        assert_eq!(b, (100.0, 2400.0));
        // y = x from a start below the box's bottom: the start moves right.
        let [a, _] = clipped_line(1.0, (0.5, 10.0), (1.0, 100.0)).unwrap();
        assert_eq!(a, (1.0, 1.0));
        assert!(clipped_line(1000.0, (1.0, 10.0), (1.0, 10.0)).is_none());
    }

    #[test]
    fn a_legend_name_is_the_last_two_parts_of_a_path() {
        assert_eq!(short_name("corpus/decode/bomb-1"), "decode/bomb-1");
        assert_eq!(short_name("bomb-1"), "bomb-1");
    }

    #[test]
    fn byte_ticks_are_round_and_zero_is_labelled() {
        assert_eq!(bytes_tick(ZERO_HEAP), "0 B");
        assert_eq!(bytes_tick(1024.0), "1 KiB");
        assert_eq!(bytes_tick(1_048_576.0), "1 MiB");
        assert_eq!(bytes_tick(1536.0), "1.5 KiB");
        assert_eq!(heap_coord(0), ZERO_HEAP);
    }
}
