//! The host's modules are layers: each may import only from its own layer and the layers below
//! it, so no import cycle can come back. This reads the sources and names every import that
//! reaches up.

use std::path::{Path, PathBuf};

/// The layers, bottom first. A top-level module `cli_*` belongs to `cli`.
const LAYERS: &[&str] =
    &["runtime", "agents", "matches", "tournament", "session", "ops", "server", "cli"];

/// The layer of a source file, from its first path component under `src/`.
fn layer_of(relative: &Path) -> Option<usize> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let module = first.trim_end_matches(".rs");
    let module = if module.starts_with("cli_") { "cli" } else { module };
    LAYERS.iter().position(|l| *l == module)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("host/src is readable") {
        let path = entry.expect("directory entries read").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::MODULE` the text names, with its line number.
fn crate_imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let module: String =
                rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.push((number + 1, module));
        }
    }
    found
}

/// The imports of `text` (a file of layer `own`) that reach a higher layer.
fn upward(own: usize, text: &str) -> Vec<(usize, String)> {
    crate_imports(text)
        .into_iter()
        .filter(|(_, module)| {
            let module = if module.starts_with("cli_") { "cli" } else { module.as_str() };
            LAYERS.iter().position(|l| *l == module).is_some_and(|layer| layer > own)
        })
        .collect()
}

#[test]
fn no_module_imports_from_a_layer_above() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut problems = Vec::new();
    let mut layered = 0;
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().to_path_buf();
        if relative == Path::new("lib.rs") || relative == Path::new("main.rs") {
            continue;
        }
        let own = layer_of(&relative).unwrap_or_else(|| {
            panic!("{}: not in any layer; add it to LAYERS", relative.display())
        });
        layered += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, module) in upward(own, &text) {
            problems.push(format!(
                "{}:{line} ({}) imports crate::{module}",
                relative.display(),
                LAYERS[own]
            ));
        }
    }
    assert!(layered > 20, "only {layered} source files found under {}", src.display());
    assert!(problems.is_empty(), "imports from a layer above:\n{}", problems.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    let matches = LAYERS.iter().position(|l| *l == "matches").unwrap();
    let text = "use crate::agents::AgentHandle;\nuse crate::ops::agents::x; // crate::server\n";
    assert_eq!(upward(matches, text), vec![(2, "ops".to_string())]);
}
