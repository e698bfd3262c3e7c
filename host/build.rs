//! Stamps the build into the binary: `YOMI_BUILD` is the git commit the host was built from
//! (12 hex digits), so `yomi --version` and `hello` tell which source a running server came from.
//! A build outside git (a source tarball, a container context without `.git`) can pass
//! `YOMI_BUILD` itself; otherwise the build is `unknown`. Never fails the build.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=YOMI_BUILD");
    let build = std::env::var("YOMI_BUILD")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=YOMI_BUILD={}", build.trim());
}

/// The commit of HEAD, and the files whose change means a new commit (HEAD itself, the branch
/// it points at, packed refs) so Cargo stamps again after each commit and not otherwise.
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let common = PathBuf::from(git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])?);
    let branch = git(&["symbolic-ref", "-q", "HEAD"]).map(|branch| common.join(branch));
    // Only files that exist: Cargo reruns a script on every build for a path that does not.
    for file in
        [Some(git_dir.join("HEAD")), Some(common.join("packed-refs")), branch].into_iter().flatten()
    {
        if file.is_file() {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
    Some(commit)
}

/// One git command's trimmed output, or None when git is missing or says no.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
