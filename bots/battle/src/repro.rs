//! `yomi repro battle [--json]`: the seed's tables regenerated (issue 5).

use yomi_plugin::{ErrorCode, ErrorInfo};

pub fn command(_args: &[String]) -> Result<String, ErrorInfo> {
    Err(ErrorInfo::new(ErrorCode::InvalidParams, "the reproduction is not built yet"))
}
