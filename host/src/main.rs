//! The `yomi` binary. Everything lives in the `yomi_host` library; this only starts it.

fn main() -> std::process::ExitCode {
    yomi_host::cli::main()
}
