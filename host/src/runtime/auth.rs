//! Who may do what: the two roles, the tokens that grant them, and what a connection that has
//! given no token may do. The check runs once per connection (at `hello`, or at the WebSocket
//! upgrade), never per request.

use std::path::{Path, PathBuf};

use clap::Args;
use sha2::{Digest, Sha256};
use yomi_protocol::{ErrorCode, ErrorInfo};

/// `yomi serve`'s tokens and exposure flags. A token on the command line shows in `ps`: prefer
/// the environment or a file.
#[derive(Debug, Clone, Args)]
pub struct AuthArgs {
    /// The player token network clients give in `hello` (also $YOMI_TOKEN).
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Read the player token from this file (surrounding whitespace ignored).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The operator token (also $YOMI_OPERATOR_TOKEN): `plugin.load`, records, plugin paths.
    /// With --http and no token at all, one is generated per launch and printed in the
    /// playground's URL.
    #[arg(long, value_name = "TOKEN", conflicts_with = "operator_token_file")]
    pub operator_token: Option<String>,
    /// Read the operator token from this file.
    #[arg(long, value_name = "FILE")]
    pub operator_token_file: Option<PathBuf>,
    /// Listen on addresses other machines can reach without a token; clients that give none
    /// are served as players.
    #[arg(long)]
    pub insecure: bool,
    /// An origin (`https://game.example`) whose pages may open a WebSocket besides the
    /// server's own (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// A host name the HTTP listener answers besides loopback names and IP addresses
    /// (repeatable), e.g. the name a load balancer forwards.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
}

impl AuthArgs {
    /// The tokens from the flags, files and environment (flags and files win).
    pub fn auth(&self) -> anyhow::Result<Auth> {
        let player = token_from(&self.token, &self.token_file, "YOMI_TOKEN")?;
        let operator =
            token_from(&self.operator_token, &self.operator_token_file, "YOMI_OPERATOR_TOKEN")?;
        if let (Some(p), Some(o)) = (&player, &operator) {
            if p.0 == o.0 {
                anyhow::bail!("the player and operator tokens must differ");
            }
        }
        Ok(Auth { operator, player, insecure: self.insecure, generated: false })
    }
}

/// A token from its flag, else its file, else the environment variable.
fn token_from(
    flag: &Option<String>,
    file: &Option<PathBuf>,
    var: &str,
) -> anyhow::Result<Option<Token>> {
    let text = match (flag, file) {
        (Some(text), _) => text.clone(),
        (None, Some(file)) => read_token_file(file)?,
        (None, None) => match std::env::var(var) {
            Ok(text) => text,
            Err(_) => return Ok(None),
        },
    };
    Token::new(&text)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{e} (from {})", source_name(flag, file, var)))
}

/// A token file's text; only its first 4 KiB are read (a token is far shorter, and a path like
/// `/dev/zero` must not fill memory).
fn read_token_file(file: &Path) -> anyhow::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(4096).read_to_string(&mut text))
        .map_err(|e| anyhow::anyhow!("cannot read the token file {}: {e}", file.display()))?;
    Ok(text)
}

fn source_name(flag: &Option<String>, file: &Option<PathBuf>, var: &str) -> String {
    match (flag, file) {
        (Some(_), _) => "the command line".into(),
        (None, Some(file)) => file.display().to_string(),
        (None, None) => format!("${var}"),
    }
}

/// What a session may do. The parent process on stdio is always an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Agents, `agent.act`, services, matches and tournaments within the player limits.
    Player,
    /// Everything: `plugin.load`, plugin paths, tournament records, beyond the player limits.
    Operator,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Operator => "operator",
        }
    }

    /// `unauthorized` unless this role is an operator.
    pub fn require_operator(self, what: &str) -> Result<(), ErrorInfo> {
        match self {
            Role::Operator => Ok(()),
            Role::Player => Err(ErrorInfo::new(
                ErrorCode::Unauthorized,
                format!("{what} needs the operator role (give the operator token in `hello`)"),
            )),
        }
    }
}

/// A secret a client presents. Kept as its SHA-256 digest, so comparing takes the same time
/// whatever the guess (its length included) and the token itself is never printed by `Debug`.
#[derive(Clone)]
pub struct Token([u8; 32]);

impl Token {
    /// A token from its text, surrounding whitespace ignored; an empty one is refused (it would
    /// let anyone in), and so is one with control characters (a binary file named by mistake).
    pub fn new(text: &str) -> Result<Token, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("a token must not be empty".into());
        }
        if text.chars().any(char::is_control) {
            return Err("a token must be printable text".into());
        }
        Ok(Token(Sha256::digest(text.as_bytes()).into()))
    }

    /// Whether `given` is this token, in time independent of where they differ.
    pub fn matches(&self, given: &str) -> bool {
        let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        constant_time_eq(&self.0, &given)
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

/// Equal slices, compared without an early exit.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// A fresh token from the OS's random source: 32 bytes as 64 hex digits.
pub fn generate_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The server's tokens and what a client that gives none gets.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    pub operator: Option<Token>,
    pub player: Option<Token>,
    /// `--insecure`: serve non-loopback addresses without a token (unauthenticated clients are
    /// players).
    pub insecure: bool,
    /// The operator token was generated at launch for the HTTP listener, not configured.
    pub generated: bool,
}

impl Auth {
    /// Whether the operator configured a token (a generated one does not count).
    pub fn configured(&self) -> bool {
        (self.operator.is_some() && !self.generated) || self.player.is_some()
    }

    /// The role a token grants, or `unauthorized`.
    pub fn role_for(&self, given: &str) -> Result<Role, ErrorInfo> {
        if self.operator.as_ref().is_some_and(|t| t.matches(given)) {
            return Ok(Role::Operator);
        }
        if self.player.as_ref().is_some_and(|t| t.matches(given)) {
            return Ok(Role::Player);
        }
        Err(ErrorInfo::new(ErrorCode::Unauthorized, "wrong token"))
    }

    /// What a network client that has given no token may do: with no token configured, clients
    /// of a TCP listener on a loopback address are operators (a local single-user setup; web
    /// pages cannot reach it, the HTTP listener always has a token); `--insecure` makes everyone
    /// else a player; otherwise nothing until a token is given.
    pub fn open_role(&self, loopback_tcp: bool) -> Option<Role> {
        if !self.configured() && loopback_tcp {
            Some(Role::Operator)
        } else if self.insecure {
            Some(Role::Player)
        } else {
            None
        }
    }
}

/// Whether a connection may make requests yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Granted(Role),
    /// Only `hello` (with a token) and `ping` until a token is given.
    Pending,
    /// It gave a wrong token: the connection closes after that reply, so guessing costs a
    /// connection per guess.
    Refused,
}

impl Access {
    pub fn role(self) -> Option<Role> {
        match self {
            Access::Granted(role) => Some(role),
            Access::Pending | Access::Refused => None,
        }
    }
}

/// The `unauthorized` error for a request made before the token.
pub fn token_needed(op: &str) -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::Unauthorized,
        format!("`{op}` needs a token first: send {{\"op\":\"hello\",\"token\":\"...\"}}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_itself_only() {
        let token = Token::new("s3cret").unwrap();
        assert!(token.matches("s3cret"));
        assert!(!token.matches("s3cres"));
        assert!(!token.matches("s3cret "));
        assert!(!token.matches(""));
        assert!(Token::new("  ").is_err());
        assert!(Token::new("\0\0").is_err());
        assert!(Token::new(" padded\n").unwrap().matches("padded"));
        assert_eq!(format!("{token:?}"), "Token(..)");
    }

    #[test]
    fn each_token_grants_its_role() {
        let auth = Auth {
            operator: Some(Token::new("op").unwrap()),
            player: Some(Token::new("pl").unwrap()),
            ..Auth::default()
        };
        assert_eq!(auth.role_for("op").unwrap(), Role::Operator);
        assert_eq!(auth.role_for("pl").unwrap(), Role::Player);
        assert_eq!(auth.role_for("x").unwrap_err().code, ErrorCode::Unauthorized);
        assert_eq!(auth.open_role(true), None);
    }

    #[test]
    fn without_tokens_only_loopback_is_open_to_operators() {
        let open = Auth::default();
        assert_eq!(open.open_role(true), Some(Role::Operator));
        assert_eq!(open.open_role(false), None);
        let insecure = Auth { insecure: true, ..Auth::default() };
        assert_eq!(insecure.open_role(false), Some(Role::Player));
        let generated =
            Auth { operator: Some(Token::new("g").unwrap()), generated: true, ..Auth::default() };
        assert!(!generated.configured());
        assert_eq!(generated.open_role(true), Some(Role::Operator));
        assert_eq!(generated.open_role(false), None);
    }

    #[test]
    fn generated_tokens_are_long_and_differ() {
        let (a, b) = (generate_token().unwrap(), generate_token().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[test]
    fn players_are_refused_operator_operations() {
        assert!(Role::Operator.require_operator("plugin.load").is_ok());
        let error = Role::Player.require_operator("plugin.load").unwrap_err();
        assert_eq!(error.code, ErrorCode::Unauthorized);
    }
}
