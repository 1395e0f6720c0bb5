//! Plain-text tables of per-run figures: a column per figure, a row per
//! run, then a row of medians (each column's median over the runs that
//! measured it; a ratio column's median is the median of per-run ratios,
//! never a ratio of medians).

use std::fmt::Write as _;

use crate::median;

/// One table column: a value per run, and the median over the runs.
pub struct Col {
    head: &'static str,
    width: usize,
    decimals: usize,
    values: Vec<Option<f64>>,
}

impl Col {
    /// A column headed `head`, at least `width` wide (and as wide as the
    /// head), its values shown with `decimals` decimals.
    pub fn new(head: &'static str, width: usize, decimals: usize, values: Vec<Option<f64>>) -> Self {
        Self {
            head,
            width: width.max(head.chars().count()),
            decimals,
            values,
        }
    }

    /// The median of the values measured.
    pub fn median(&self) -> Option<f64> {
        median(self.values.iter().flatten().copied().collect())
    }
}

/// `v` right-aligned in `width` with `decimals` decimals; `-` for none.
pub fn cell(v: Option<f64>, width: usize, decimals: usize) -> String {
    match v {
        Some(x) => format!("{x:>width$.decimals$}"),
        None => format!("{:>width$}", "-"),
    }
}

/// The columns' rows per run, then their medians.
pub fn print_table(cols: &[Col], runs: usize) {
    let mut line = format!("{:<6}", "run");
    for c in cols {
        let _ = write!(line, " {:>w$}", c.head, w = c.width);
    }
    println!("{line}");
    for i in 0..runs {
        let mut line = format!("{:<6}", i + 1);
        for c in cols {
            let _ = write!(
                line,
                " {}",
                cell(c.values.get(i).copied().flatten(), c.width, c.decimals)
            );
        }
        println!("{line}");
    }
    let mut line = format!("{:<6}", "median");
    for c in cols {
        let _ = write!(line, " {}", cell(c.median(), c.width, c.decimals));
    }
    println!("{line}");
}

/// Per-run `a ÷ b`, where both were measured.
pub fn ratios(a: &[Option<f64>], b: &[Option<f64>]) -> Vec<Option<f64>> {
    a.iter().zip(b).map(|(a, b)| a.zip(*b).map(|(a, b)| a / b)).collect()
}

/// The values that were measured.
pub fn flat(v: &[Option<f64>]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_ratios_and_medians() {
        assert_eq!(cell(Some(1.23456), 8, 2), "    1.23");
        assert_eq!(cell(None, 4, 0), "   -");
        assert_eq!(
            ratios(&[Some(4.0), None, Some(1.0)], &[Some(2.0), Some(1.0), None]),
            vec![Some(2.0), None, None]
        );
        assert_eq!(flat(&[Some(1.0), None, Some(3.0)]), vec![1.0, 3.0]);
        assert_eq!(
            Col::new("rec/s", 2, 0, vec![Some(3.0), None, Some(1.0)]).median(),
            Some(2.0)
        );
    }
}
