//! The solved table on disk, so a one-shot `yomi battle analyze` reads a table instead of solving
//! the whole game again: `<data dir>/battle/tables/<key>.table`, where the key is the SHA-256 of
//! the rules (parties, switches, turn limit). Changed rules give a new key, so a stale table is
//! never read; a file whose header or CRC-32 does not match is treated as absent and rewritten.
//! Files are written to a temporary name and renamed, so a reader never sees half a table.
//!
//! Every custom party set leaves a table of up to 66 MB, so the directory is bounded: after each
//! save the least recently used tables (by modification time, which a load refreshes) are removed
//! until the rest fit in [`MAX_STORED_BYTES`].
//!
//! Layout (little-endian): magic, the 32-byte key, layer count (u32), layer length (u64), states
//! solved (u64), every layer's `f32` values in order, and a CRC-32 of everything before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::engine::Engine;
use crate::rules::Rules;
use crate::solver::Table;

/// The most the stored tables may take together: about 16 of the paper's tables.
pub const MAX_STORED_BYTES: u64 = 512 << 20;

const MAGIC: &[u8; 16] = b"yomi-battle-tbl1";
const HEADER: usize = MAGIC.len() + 32 + 4 + 8 + 8;

/// The SHA-256 of the rules' canonical JSON.
fn key(rules: &Rules) -> [u8; 32] {
    Sha256::digest(rules.key().as_bytes()).into()
}

/// Where the table for `rules` lives under `data_dir`.
pub fn path(data_dir: &Path, rules: &Rules) -> PathBuf {
    let hex: String = key(rules).iter().map(|b| format!("{b:02x}")).collect();
    data_dir.join("battle").join("tables").join(format!("{hex}.table"))
}

/// The stored table for `rules`, or None when there is none or it is not intact. A table read
/// is marked as used now, so the least recently used ones are removed first.
pub fn load(data_dir: &Path, rules: &Rules) -> Option<Table> {
    let file = std::fs::File::open(path(data_dir, rules)).ok()?;
    let _ = file.set_modified(SystemTime::now());
    decode(std::io::BufReader::with_capacity(1 << 16, file), rules)
}

/// Stores `table` for `rules`; the cache is an optimisation, so a failure only costs a re-solve
/// next time and is returned for the caller to report if it wishes. The file is written under a
/// temporary name and renamed into place, then the store is pruned; on any error the temporary
/// file is removed.
pub fn save(data_dir: &Path, rules: &Rules, table: &Table) -> std::io::Result<()> {
    let target = path(data_dir, rules);
    let dir = target.parent().expect("the table path has a directory");
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{}.{}.tmp", std::process::id(), unique()));
    match encode(&temp, rules, table).and_then(|()| std::fs::rename(&temp, &target)) {
        Ok(()) => prune(dir, &target),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Writes `table` to `file` in the store's layout. No fsync: a table cut short by a crash fails
/// its CRC and is solved again.
fn encode(file: &Path, rules: &Rules, table: &Table) -> std::io::Result<()> {
    let layers = table.layers();
    let mut out = std::io::BufWriter::with_capacity(1 << 18, std::fs::File::create(file)?);
    let mut crc = crc32fast::Hasher::new();
    let mut write = |bytes: &[u8]| -> std::io::Result<()> {
        crc.update(bytes);
        out.write_all(bytes)
    };
    write(MAGIC)?;
    write(&key(rules))?;
    write(&(layers.len() as u32).to_le_bytes())?;
    write(&(layers.first().map_or(0, Vec::len) as u64).to_le_bytes())?;
    write(&table.solved.to_le_bytes())?;
    let mut bytes = Vec::with_capacity(1 << 18);
    for chunk in layers.iter().flat_map(|layer| layer.chunks(1 << 16)) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|x| x.to_le_bytes()));
        write(&bytes)?;
    }
    let sum = crc.finalize();
    out.write_all(&sum.to_le_bytes())?;
    out.flush()
}

/// A temporary file this old was left by a process that ended while saving (a server stopped at
/// the wrong moment).
const STALE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the least recently used tables in `dir` (never `keep`) until the rest, `keep`
/// included, hold at most [`MAX_STORED_BYTES`], and temporary files older than [`STALE`].
fn prune(dir: &Path, keep: &Path) -> std::io::Result<()> {
    let mut tables: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.extension().is_some_and(|e| e == "table") && meta.is_file() {
            tables.push((meta.modified()?, meta.len(), path));
        } else if name.starts_with('.') && name.ends_with(".tmp") && meta.is_file() {
            let age = meta.modified()?.elapsed().unwrap_or_default();
            if age > STALE {
                // Another process may have removed it first.
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    // Newest first: keep what fits, remove the rest.
    tables.sort_by_key(|t| std::cmp::Reverse(t.0));
    let mut total = tables.iter().find(|t| t.2 == keep).map_or(0, |t| t.1);
    for (_, len, path) in tables.iter().filter(|t| t.2 != keep) {
        total += len;
        if total > MAX_STORED_BYTES {
            std::fs::remove_file(path)?;
            total -= len;
        }
    }
    Ok(())
}

/// A per-process counter, so two threads saving at once never share a temporary file.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Reads a stored table layer by layer straight into its final vectors, checking the CRC as it
/// goes: a one-shot `analyze` spends most of its time here, and reading the whole file into one
/// buffer first cost a second copy and twice the page faults.
fn decode(mut reader: impl Read, rules: &Rules) -> Option<Table> {
    let mut crc = crc32fast::Hasher::new();
    let mut read = |buf: &mut [u8]| -> Option<()> {
        reader.read_exact(buf).ok()?;
        crc.update(buf);
        Some(())
    };
    let mut header = [0u8; HEADER];
    read(&mut header)?;
    if &header[..16] != MAGIC || header[16..48] != key(rules) {
        return None;
    }
    let count = u32::from_le_bytes(header[48..52].try_into().ok()?) as usize;
    let layer_len = usize::try_from(u64::from_le_bytes(header[52..60].try_into().ok()?)).ok()?;
    let solved = u64::from_le_bytes(header[60..68].try_into().ok()?);
    // A damaged header must not make us allocate what the rules' own layout would not.
    if (count, layer_len) != Table::shape(Engine::new(rules.clone())) {
        return None;
    }
    let mut bytes = vec![0u8; layer_len.checked_mul(4)?];
    let mut layers = Vec::with_capacity(count);
    for _ in 0..count {
        read(&mut bytes)?;
        let layer =
            bytes.chunks_exact(4).map(|x| f32::from_le_bytes(x.try_into().expect("4 bytes")));
        layers.push(layer.collect());
    }
    let mut stored_crc = [0u8; 4];
    reader.read_exact(&mut stored_crc).ok()?;
    let mut rest = [0u8; 1];
    if crc.finalize().to_le_bytes() != stored_crc || reader.read(&mut rest).ok()? != 0 {
        return None;
    }
    Table::from_layers(Engine::new(rules.clone()), layers, solved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Rules {
        Rules::new(crate::rules::preset_parties("thesis").unwrap(), false, 4).unwrap()
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("yomi-battle-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_saved_table_loads_back_bit_for_bit() {
        let (rules, dir) = (small(), temp_dir("roundtrip"));
        let table = Table::solve(Engine::new(rules.clone()), 2);
        save(&dir, &rules, &table).unwrap();
        let back = load(&dir, &rules).expect("stored table");
        assert_eq!(back.solved, table.solved);
        let bits =
            |t: &Table| -> Vec<u32> { t.layers().iter().flatten().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&back), bits(&table));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_save_that_fails_leaves_no_file() {
        let (rules, dir) = (small(), temp_dir("failed"));
        let table = Table::solve(Engine::new(rules.clone()), 2);
        // A directory where the table should go: the rename into place fails.
        let target = path(&dir, &rules);
        std::fs::create_dir_all(target.join("in-the-way")).unwrap();
        assert!(save(&dir, &rules, &table).is_err());
        let left: Vec<_> = std::fs::read_dir(target.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the directory in the way: {left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_least_recently_used_tables_and_stale_temporary_files_go_when_the_store_is_full() {
        let dir = temp_dir("prune");
        std::fs::create_dir_all(&dir).unwrap();
        let day = std::time::Duration::from_secs(86_400);
        // Sparse files: their length counts, no disk is used.
        let old = |name: &str, len: u64, age: u32| {
            let file = std::fs::File::create(dir.join(name)).unwrap();
            file.set_len(len).unwrap();
            file.set_modified(SystemTime::now() - day * age).unwrap();
            dir.join(name)
        };
        let oldest = old("a.table", MAX_STORED_BYTES / 2, 3);
        let middle = old("b.table", MAX_STORED_BYTES / 2, 2);
        let other = old("notes.txt", MAX_STORED_BYTES, 5);
        let (stale, saving) = (old(".1.0.tmp", 1000, 1), old(".2.0.tmp", 1000, 0));
        let newest = old("c.table", MAX_STORED_BYTES / 4, 1);
        let kept = old("d.table", MAX_STORED_BYTES / 4, 9);
        prune(&dir, &kept).unwrap();
        assert!(!oldest.exists(), "the least recently used table is removed");
        assert!(middle.exists() && newest.exists() && kept.exists() && other.exists());
        assert!(!stale.exists(), "a day-old temporary file is left over from an ended process");
        assert!(saving.exists(), "a fresh temporary file may be another process's save");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_rules_and_damaged_files_are_not_read() {
        let (rules, dir) = (small(), temp_dir("damage"));
        save(&dir, &rules, &Table::solve(Engine::new(rules.clone()), 2)).unwrap();
        let other = Rules::new(rules.parties.clone(), true, 4).unwrap();
        assert_ne!(path(&dir, &other), path(&dir, &rules));
        assert!(load(&dir, &other).is_none(), "changed rules have their own key");
        // The right name holding another rule set's table is refused by the header's key.
        std::fs::copy(path(&dir, &rules), path(&dir, &other)).unwrap();
        assert!(load(&dir, &other).is_none());
        // One flipped bit anywhere fails the checksum; a truncated file fails too.
        let file = path(&dir, &rules);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[HEADER + 1000] ^= 0x10;
        std::fs::write(&file, &bytes).unwrap();
        assert!(load(&dir, &rules).is_none());
        std::fs::write(&file, &bytes[..100]).unwrap();
        assert!(load(&dir, &rules).is_none());
        std::fs::write(&file, b"").unwrap();
        assert!(load(&dir, &rules).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
