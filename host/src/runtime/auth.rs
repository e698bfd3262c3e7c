//! Who may do what: the two roles, the tokens that grant them, and what a connection that has
//! given no token may do. The check runs once per connection (at `hello`, or at the WebSocket
//! upgrade), never per request.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// Wrong tokens one address may give in a minute; past that its token checks are refused
    /// unread until the minute is over (0: no limit).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TOKEN_FAILURES)]
    pub max_token_failures: u32,
}

impl AuthArgs {
    /// The tokens from the flags, files and environment (flags and files win).
    pub fn auth(&self) -> anyhow::Result<Auth> {
        let player = token_from(&self.token, &self.token_file, "YOMI_TOKEN")?;
        let operator =
            token_from(&self.operator_token, &self.operator_token_file, "YOMI_OPERATOR_TOKEN")?;
        if let (Some(p), Some(o)) = (&player, &operator) {
            if p.digest == o.digest {
                anyhow::bail!("the player and operator tokens must differ");
            }
        }
        Ok(Auth {
            operator,
            player,
            insecure: self.insecure,
            generated: false,
            failures: Arc::new(FailedTokens::new(self.max_token_failures)),
        })
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

/// The shortest token a server that other machines can reach accepts: 16 characters, so a
/// token cannot be guessed within the failure throttle's budget.
pub const MIN_EXPOSED_TOKEN_CHARS: usize = 16;

/// A secret a client presents. Kept as its SHA-256 digest, so comparing takes the same time
/// whatever the guess (its length included) and the token itself is never printed by `Debug`;
/// its length is kept to refuse short tokens on exposed addresses.
#[derive(Clone)]
pub struct Token {
    digest: [u8; 32],
    chars: usize,
}

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
        Ok(Token { digest: Sha256::digest(text.as_bytes()).into(), chars: text.chars().count() })
    }

    /// Whether `given` is this token, in time independent of where they differ.
    pub fn matches(&self, given: &str) -> bool {
        let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        constant_time_eq(&self.digest, &given)
    }

    /// Whether the token is too short for an address other machines can reach.
    pub fn is_short(&self) -> bool {
        self.chars < MIN_EXPOSED_TOKEN_CHARS
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

/// The server's tokens, what a client that gives none gets, and the wrong guesses so far.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    pub operator: Option<Token>,
    pub player: Option<Token>,
    /// `--insecure`: serve non-loopback addresses without a token (unauthenticated clients are
    /// players).
    pub insecure: bool,
    /// The operator token was generated at launch for the HTTP listener, not configured.
    pub generated: bool,
    /// Wrong tokens per address (`--max-token-failures`), shared by every listener.
    pub failures: Arc<FailedTokens>,
}

impl Auth {
    /// Whether the operator configured a token (a generated one does not count).
    pub fn configured(&self) -> bool {
        (self.operator.is_some() && !self.generated) || self.player.is_some()
    }

    /// The role a token from `address` grants, or `unauthorized`; an address that has given
    /// too many wrong tokens this minute is refused without a look at its token.
    pub fn role_for(&self, address: Option<IpAddr>, given: &str) -> Result<Role, ErrorInfo> {
        if let Some(address) = address {
            self.failures.check(address)?;
        }
        let role = self.role_of(given);
        if let (Err(_), Some(address)) = (&role, address) {
            self.failures.record(address);
        }
        role
    }

    /// The short tokens among the configured ones, named, for the exposure check.
    pub fn short_tokens(&self) -> Vec<&'static str> {
        let named = [("--operator-token", &self.operator), ("--token", &self.player)];
        named
            .into_iter()
            .filter(|(_, token)| token.as_ref().is_some_and(Token::is_short))
            .map(|(name, _)| name)
            .collect()
    }

    fn role_of(&self, given: &str) -> Result<Role, ErrorInfo> {
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

/// The default of `--max-token-failures`: a person mistyping a token a few times never meets
/// it; a script guessing gets 20 tries a minute instead of thousands a second.
pub const DEFAULT_MAX_TOKEN_FAILURES: u32 = 20;

/// How long an address's wrong tokens count against it.
const FAILURE_WINDOW: Duration = Duration::from_secs(60);

/// The addresses remembered at once; past that, those whose window is over are forgotten first,
/// then the oldest, so many addresses cannot grow the table without bound.
const MAX_FAILING_ADDRESSES: usize = 16_384;

/// Wrong tokens per client address in the current minute, as fail2ban counts them: a token
/// check from an address over the limit is refused unread, so guessing costs a minute per
/// `--max-token-failures` guesses, whatever the number of connections.
#[derive(Debug)]
pub struct FailedTokens {
    limit: u32,
    by_address: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Default for FailedTokens {
    fn default() -> Self {
        FailedTokens::new(DEFAULT_MAX_TOKEN_FAILURES)
    }
}

impl FailedTokens {
    /// At most `limit` wrong tokens a minute from one address (0: no limit).
    pub fn new(limit: u32) -> FailedTokens {
        FailedTokens { limit, by_address: Mutex::default() }
    }

    /// `unauthorized` (saying how long to wait) when `address` has used up its wrong tokens.
    fn check(&self, address: IpAddr) -> Result<(), ErrorInfo> {
        let by_address = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
        match by_address.get(&address) {
            Some(&(failed, since)) if self.limit > 0 && failed >= self.limit => {
                let left = FAILURE_WINDOW.saturating_sub(since.elapsed());
                if left.is_zero() {
                    return Ok(());
                }
                Err(ErrorInfo::new(
                    ErrorCode::Unauthorized,
                    format!(
                        "too many wrong tokens from this address (--max-token-failures {} a \
                         minute); try again in {} s",
                        self.limit,
                        left.as_secs() + 1
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Counts one wrong token from `address`.
    fn record(&self, address: IpAddr) {
        if self.limit == 0 {
            return;
        }
        let mut by_address = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
        if by_address.len() >= MAX_FAILING_ADDRESSES && !by_address.contains_key(&address) {
            by_address.retain(|_, (_, since)| since.elapsed() < FAILURE_WINDOW);
            if by_address.len() >= MAX_FAILING_ADDRESSES {
                let oldest =
                    by_address.iter().min_by_key(|(_, (_, since))| *since).map(|(a, _)| *a);
                oldest.map(|a| by_address.remove(&a));
            }
        }
        let entry = by_address.entry(address).or_insert((0, Instant::now()));
        if entry.1.elapsed() >= FAILURE_WINDOW {
            *entry = (0, Instant::now());
        }
        entry.0 += 1;
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
        assert_eq!(auth.role_for(None, "op").unwrap(), Role::Operator);
        assert_eq!(auth.role_for(None, "pl").unwrap(), Role::Player);
        assert_eq!(auth.role_for(None, "x").unwrap_err().code, ErrorCode::Unauthorized);
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
    fn an_address_past_its_wrong_tokens_is_refused_even_the_right_one_until_the_minute_ends() {
        let auth = Auth {
            player: Some(Token::new("the-right-token-123").unwrap()),
            failures: Arc::new(FailedTokens::new(3)),
            ..Auth::default()
        };
        let (guesser, other) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        for guess in 0..3 {
            let error = auth.role_for(Some(guesser), &format!("guess{guess}")).unwrap_err();
            assert_eq!(error.message, "wrong token");
        }
        let throttled = auth.role_for(Some(guesser), "the-right-token-123").unwrap_err();
        assert!(throttled.message.contains("--max-token-failures 3"), "{}", throttled.message);
        assert_eq!(auth.role_for(Some(other), "the-right-token-123").unwrap(), Role::Player);
        // The window starts over once a minute has passed.
        auth.failures.by_address.lock().unwrap().get_mut(&guesser).unwrap().1 -= FAILURE_WINDOW;
        assert_eq!(auth.role_for(Some(guesser), "the-right-token-123").unwrap(), Role::Player);
    }

    #[test]
    fn the_failure_table_stays_bounded_under_many_addresses() {
        let failures = FailedTokens::new(5);
        for i in 0..(MAX_FAILING_ADDRESSES as u32 + 100) {
            failures.record(IpAddr::from(i.to_be_bytes()));
        }
        assert_eq!(failures.by_address.lock().unwrap().len(), MAX_FAILING_ADDRESSES);
    }

    #[test]
    fn short_configured_tokens_are_named() {
        let auth = Auth {
            operator: Some(Token::new("x").unwrap()),
            player: Some(Token::new("a-long-enough-token").unwrap()),
            ..Auth::default()
        };
        assert_eq!(auth.short_tokens(), vec!["--operator-token"]);
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
