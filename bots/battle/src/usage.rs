//! What the process has used so far: CPU time and peak memory, read from Linux `/proc` (None
//! elsewhere). The CLI's `solve` and the first-move measurement report them beside wall time.

/// CPU time (user + system) the process has used so far, from Linux `/proc/self/stat`: on a
/// shared machine it measures the work where wall time measures the contention.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The process's peak resident memory (Linux `VmHWM`), when the system says.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
