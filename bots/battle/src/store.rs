//! The solved table on disk, so a one-shot `yomi battle analyze` reads a table instead of solving
//! the whole game again: `<data dir>/battle/tables/<key>.table`, where the key is the SHA-256 of
//! the rules (parties, switches, turn limit). Changed rules give a new key, so a stale table is
//! never read; a file whose header or CRC-32 does not match is treated as absent and rewritten.
//! Files are written to a temporary name and renamed, so a reader never sees half a table.
//!
//! Layout (little-endian): magic, the 32-byte key, layer count (u32), layer length (u64), states
//! solved (u64), every layer's `f32` values in order, and a CRC-32 of everything before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::engine::Engine;
use crate::rules::Rules;
use crate::solver::Table;

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

/// The stored table for `rules`, or None when there is none or it is not intact.
pub fn load(data_dir: &Path, rules: &Rules) -> Option<Table> {
    let file = std::fs::File::open(path(data_dir, rules)).ok()?;
    decode(std::io::BufReader::with_capacity(1 << 16, file), rules)
}

/// Stores `table` for `rules`; the cache is an optimisation, so a failure only costs a re-solve
/// next time and is returned for the caller to report if it wishes.
pub fn save(data_dir: &Path, rules: &Rules, table: &Table) -> std::io::Result<()> {
    let target = path(data_dir, rules);
    let dir = target.parent().expect("the table path has a directory");
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{}.{}.tmp", std::process::id(), unique()));
    let written = std::fs::File::create(&temp).and_then(|mut f| {
        f.write_all(&encode(table, rules))?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temp, &target)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// A per-process counter, so two threads saving at once never share a temporary file.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn encode(table: &Table, rules: &Rules) -> Vec<u8> {
    let layers = table.layers();
    let layer_len = layers.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(HEADER + layers.len() * layer_len * 4 + 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key(rules));
    out.extend_from_slice(&(layers.len() as u32).to_le_bytes());
    out.extend_from_slice(&(layer_len as u64).to_le_bytes());
    out.extend_from_slice(&table.solved.to_le_bytes());
    for layer in layers {
        for x in layer {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
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
