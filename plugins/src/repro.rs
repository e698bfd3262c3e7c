//! Reproduction rows: one shape for every plugin's `yomi repro <plugin> --json` output, the
//! markdown table REPRODUCTION.md is generated from, and the intervals the rows carry.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// One reproduced number beside the paper's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The paper's table or figure, e.g. "5.2".
    pub table: String,
    /// The row of that table, in the paper's words or ours.
    pub row: String,
    /// The column of that table: what was measured.
    pub column: String,
    /// The paper's number, or None where the paper gives none (or masks it). Written `seed` in
    /// the rows' JSON, the name their readers know.
    #[serde(rename = "seed")]
    pub paper: Option<f64>,
    /// Our number for the same cell.
    pub ours: f64,
    /// 95 % interval of `ours`, where it is an estimate.
    pub ci95: Option<[f64; 2]>,
    /// Games or samples behind `ours`.
    pub n: u64,
    /// Which reading of the paper produced `ours`, where the paper's words allow several; absent
    /// where there is only one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
}

/// Where a row sits: the paper's table, its row and its column. [`Place::ours`] makes the row,
/// so a row cannot be built without its figure and its count, while the paper's number, the
/// interval and the reading are named where they are given ([`Row::paper`], [`Row::ci`],
/// [`Row::reading`]).
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    table: &'a str,
    row: &'a str,
    column: &'a str,
}

impl Place<'_> {
    /// The row at this place with our figure `ours` from `n` games or samples, no number of the paper
    /// and no interval yet.
    pub fn ours(self, ours: f64, n: u64) -> Row {
        Row {
            table: self.table.into(),
            row: self.row.into(),
            column: self.column.into(),
            paper: None,
            ours,
            ci95: None,
            n,
            reading: None,
        }
    }

    /// The row of a proportion, `successes` out of `n`, with its Wilson interval (0 when `n`
    /// is 0).
    pub fn share(self, successes: f64, n: u64) -> Row {
        let ours = if n == 0 { 0.0 } else { successes / n as f64 };
        self.ours(ours, n).ci(wilson(successes, n))
    }

    /// The row of a mean of `samples`, with its normal-approximation interval.
    pub fn mean(self, samples: &[f64]) -> Row {
        let (mean, ci) = mean_ci(samples);
        self.ours(mean, samples.len() as u64).ci(ci)
    }
}

impl Row {
    /// The place of a row in the paper's tables: table (e.g. "5.2"), row and column.
    pub fn at<'a>(table: &'a str, row: &'a str, column: &'a str) -> Place<'a> {
        Place { table, row, column }
    }

    /// The same row with the paper's number beside ours (`None` where the paper gives none).
    pub fn paper(mut self, paper: impl Into<Option<f64>>) -> Row {
        self.paper = paper.into();
        self
    }

    /// The same row with the 95 % interval of our figure (`None` where it is exact).
    pub fn ci(mut self, ci95: impl Into<Option<[f64; 2]>>) -> Row {
        self.ci95 = ci95.into();
        self
    }

    /// The same row, labelled with the reading of the paper that produced it.
    pub fn reading(mut self, reading: &str) -> Row {
        self.reading = Some(reading.into());
        self
    }

    /// True when the paper's number lies inside our interval (or equals ours when exact).
    pub fn agrees(&self) -> Option<bool> {
        let paper = self.paper?;
        Some(match self.ci95 {
            Some([lo, hi]) => paper >= lo && paper <= hi,
            None => (paper - self.ours).abs() <= 1e-9_f64.max(paper.abs() * 1e-9),
        })
    }
}

/// The flags every `yomi repro <plugin>` takes, flattened into the plugin's own `repro`
/// arguments (`#[command(flatten)] output: Output`), and [`Output::print`] the one way the
/// command ends: the same two flags and the same output in every plugin.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Output {
    /// Print the rows as a JSON array instead of markdown.
    #[arg(long)]
    pub json: bool,
    /// Render the rows an earlier `--json` run saved instead of running again
    /// (`--markdown-from` is the older name).
    #[arg(long, value_name = "FILE", alias = "markdown-from")]
    pub rows: Option<PathBuf>,
}

impl Output {
    /// The command's text: the rows `run` makes (or those saved in `--rows`), as pretty JSON with
    /// `--json` (what `--rows` and REPRODUCTION.md's generator read back), else as `document`
    /// renders them ([`markdown`], or a plugin's whole REPRODUCTION.md).
    pub fn print(
        &self,
        run: impl FnOnce() -> Result<Vec<Row>, ErrorInfo>,
        document: impl FnOnce(&[Row]) -> String,
    ) -> Result<String, ErrorInfo> {
        let rows = match &self.rows {
            Some(path) => read_rows(path)?,
            None => run()?,
        };
        Ok(if self.json { json(&rows) } else { document(&rows) })
    }
}

/// The rows as pretty JSON with a final newline.
pub fn json(rows: &[Row]) -> String {
    serde_json::to_string_pretty(rows).expect("rows of strings and numbers serialize") + "\n"
}

/// Reads rows written by [`json`] back from a file, e.g. to render a long run's rows again.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, ErrorInfo> {
    let bad = |e: &dyn std::fmt::Display| {
        ErrorInfo::new(ErrorCode::InvalidParams, format!("{}: {e}", path.display()))
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(&e))?;
    serde_json::from_str(&text).map_err(|e| bad(&e))
}

/// Wilson score interval for a proportion: `successes` out of `n`, 95 %.
pub fn wilson(successes: f64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let n = n as f64;
    let z = 1.959_963_984_540_054_f64;
    let p = successes / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// Mean and normal-approximation 95 % interval of samples.
pub fn mean_ci(samples: &[f64]) -> (f64, [f64; 2]) {
    let n = samples.len() as f64;
    if samples.is_empty() {
        return (f64::NAN, [f64::NAN, f64::NAN]);
    }
    let mean = samples.iter().sum::<f64>() / n;
    if samples.len() < 2 {
        return (mean, [mean, mean]);
    }
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.959_963_984_540_054 * (var / n).sqrt();
    (mean, [mean - half, mean + half])
}

/// The 2.5 % and 97.5 % points of a sample: the 95 % interval of a bootstrap or of repeated
/// experiments, where no normal approximation is assumed.
pub fn percentile_ci(mut samples: Vec<f64>) -> [f64; 2] {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    [at(0.025), at(0.975)]
}

/// The rows as a markdown table (seed and ours side by side, with a mark where they disagree).
pub fn markdown(rows: &[Row]) -> String {
    let with_readings = rows.iter().any(|r| r.reading.is_some());
    let mut out = String::from("| table | row | column |");
    if with_readings {
        out.push_str(" reading |");
    }
    out.push_str(" paper | ours | 95 % CI | n | agrees |\n|---|---|---|");
    if with_readings {
        out.push_str("---|");
    }
    out.push_str("---|---|---|---|---|\n");
    for r in rows {
        let paper = r.paper.map(fmt).unwrap_or_else(|| "—".into());
        let ci =
            r.ci95.map(|[a, b]| format!("[{}, {}]", fmt(a), fmt(b))).unwrap_or_else(|| "—".into());
        let agrees = match r.agrees() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "",
        };
        out.push_str(&format!("| {} | {} | {} |", r.table, r.row, r.column));
        if with_readings {
            out.push_str(&format!(" {} |", r.reading.as_deref().unwrap_or("")));
        }
        out.push_str(&format!(" {} | {} | {} | {} | {} |\n", paper, fmt(r.ours), ci, r.n, agrees));
    }
    out
}

fn fmt(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e12 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_textbook_example() {
        // 81 of 263 (Newcombe 1998, example): Wilson interval 0.2553 to 0.3662.
        let [lo, hi] = wilson(81.0, 263);
        assert!((lo - 0.2553).abs() < 5e-4 && (hi - 0.3662).abs() < 5e-4, "{lo} {hi}");
    }

    #[test]
    fn agreement_uses_the_interval() {
        let r = Row::at("5.2", "nash", "vs random").ours(0.96, 500).paper(0.968).ci([0.94, 0.975]);
        assert_eq!(r.agrees(), Some(true));
        let r = Row::at("5.2", "nash", "vs random").ours(0.90, 500).paper(0.968).ci([0.87, 0.925]);
        assert_eq!(r.agrees(), Some(false));
        assert!(markdown(&[r]).contains("**no**"));
    }

    #[test]
    fn a_place_makes_rows_of_a_figure_a_share_and_a_mean() {
        let at = Row::at("6", "r", "c");
        let row = at.ours(1.5, 2);
        assert_eq!((row.paper, row.ci95, row.reading.as_deref()), (None, None, None));
        assert_eq!((row.table.as_str(), row.row.as_str(), row.column.as_str()), ("6", "r", "c"));
        assert_eq!(row.clone().paper(0.5).paper, Some(0.5));
        assert_eq!(row.paper(None).ci([1.0, 2.0]).ci95, Some([1.0, 2.0]));

        // 3 of 10: Wilson interval [0.1078, 0.6032].
        let share = at.share(3.0, 10);
        let [lo, hi] = share.ci95.unwrap();
        assert_eq!((share.ours, share.n), (0.3, 10));
        assert!((lo - 0.1078).abs() < 5e-4 && (hi - 0.6032).abs() < 5e-4, "{lo} {hi}");
        assert_eq!((at.share(0.0, 0).ours, at.share(0.0, 0).ci95), (0.0, Some([0.0, 1.0])));

        // 1, 2, 3: mean 2, standard error 1/sqrt(3), half-width 1.96 of it.
        let mean = at.mean(&[1.0, 2.0, 3.0]);
        let [lo, hi] = mean.ci95.unwrap();
        assert_eq!((mean.ours, mean.n), (2.0, 3));
        assert!((hi - 2.0 - 1.1316).abs() < 1e-4 && (2.0 - lo - 1.1316).abs() < 1e-4, "{lo} {hi}");
    }

    #[test]
    fn json_rows_read_back_and_bad_files_are_invalid_params() {
        let rows = vec![Row::at("4.1", "a", "b").ours(1.5, 7).ci([1.0, 2.0]).reading("x")];
        let dir = std::env::temp_dir().join(format!("yomi-repro-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.json");
        let made = || Ok(rows.clone());
        let print = |output: Output| output.print(made, markdown).unwrap();
        std::fs::write(&path, print(Output { json: true, rows: None })).unwrap();
        assert_eq!(read_rows(&path).unwrap(), rows);
        let saved = Output { json: false, rows: Some(path.clone()) };
        assert_eq!(
            saved.print(|| panic!("--rows does not run"), markdown).unwrap(),
            markdown(&rows)
        );
        assert!(print(Output::default()).starts_with("| table |"));
        std::fs::write(&path, "[{").unwrap();
        assert_eq!(read_rows(&path).unwrap_err().code, ErrorCode::InvalidParams);
        let missing = read_rows(&dir.join("missing.json")).unwrap_err();
        assert!(missing.message.contains("missing.json"), "{}", missing.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn markdown_has_a_reading_column_only_when_a_row_names_one() {
        let plain = Row::at("5.1", "a", "b").ours(0.5, 10).paper(0.5);
        assert!(!markdown(std::slice::from_ref(&plain)).contains("reading"));
        let table = markdown(&[plain.clone(), plain.reading("literal")]);
        assert!(table.starts_with("| table | row | column | reading | paper |"));
        assert!(table.contains("| 5.1 | a | b | literal | 0.5000 |"), "{table}");
        assert!(table.contains("| 5.1 | a | b |  | 0.5000 |"), "{table}");
    }
}
