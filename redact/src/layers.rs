//! The engine: runs layers 1-7 over one fragment of text, merges their
//! findings and repeats on its own output until nothing more is found, so
//! that redaction is idempotent.
//!
//! Findings are merged as STORE.md §7 says: sorted by start, longer first
//! (then by layer: caller rules, known formats, URLs and connection strings,
//! credential assignments, entropy, personal data), overlapping or touching
//! findings joined, each replaced by `REDACTED` (a personal data finding by
//! its label) and named after the most specific rule among them. The word `REDACTED` and the labels already in a text are
//! atomic: a finding inside one is dropped, a finding across one's edge
//! takes it whole.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use memchr::memmem;
use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};

use crate::placeholders::{
    is_documented_example, is_placeholder, is_placeholder_body, is_typed_sequence, reads_as_words,
    ADDRESS_LABEL, EMAIL_LABEL, PHONE_LABEL, REDACTED,
};
use crate::rules::{Anchor, Rule, RULES};
use crate::text::{at_word_start, scan_back, skip_escape_letter};
use crate::urls::UrlKind;
use crate::{assign, entropy, personal, urls};

/// Which rule produced a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleRef {
    /// A caller-supplied rule (layer 5), by index.
    Custom(u32),
    /// A known token format (layer 2), by index into [`RULES`].
    Token(u32),
    /// A database URL with a password (layer 4).
    DatabaseUrl,
    /// A key=value connection string (layer 4).
    DatabaseDsn,
    /// A URL with `user:password@` (layer 3).
    UrlPassword,
    /// A credential assignment's value (layer 6).
    CredentialAssignment,
    /// A JSON value under a credential-named key.
    JsonCredentialField,
    /// A high-entropy run (layer 1).
    Entropy,
    /// An e-mail address (layer 7).
    Email,
    /// A phone number (layer 7).
    Phone,
    /// A street address (layer 7).
    Address,
}

impl RuleRef {
    /// Tie-break order for findings with the same span: lower first.
    fn rank(self) -> (u8, u32) {
        match self {
            RuleRef::Custom(i) => (0, i),
            RuleRef::Token(i) if RULES.get(i as usize).is_some_and(|r| r.generic) => (3, 2 + i),
            RuleRef::Token(i) => (1, i),
            RuleRef::DatabaseUrl => (2, 0),
            RuleRef::DatabaseDsn => (2, 1),
            RuleRef::UrlPassword => (2, 2),
            RuleRef::CredentialAssignment => (3, 0),
            RuleRef::JsonCredentialField => (3, 1),
            RuleRef::Entropy => (4, 0),
            RuleRef::Email => (5, 0),
            RuleRef::Phone => (5, 1),
            RuleRef::Address => (5, 2),
        }
    }

    /// A finding of this rule is a secret on its own, redacted wherever
    /// else it occurs in a document: known formats, entropy runs, URLs and
    /// connection strings with a password, caller rules (known formats are
    /// propagated by the layer itself).
    fn propagates(self) -> bool {
        matches!(
            self,
            RuleRef::Custom(_)
                | RuleRef::Entropy
                | RuleRef::UrlPassword
                | RuleRef::DatabaseUrl
                | RuleRef::DatabaseDsn
        )
    }

    /// The text a finding of this rule is replaced with.
    pub fn replacement(self) -> &'static str {
        match self {
            RuleRef::Email => EMAIL_LABEL,
            RuleRef::Phone => PHONE_LABEL,
            RuleRef::Address => ADDRESS_LABEL,
            _ => REDACTED,
        }
    }
}

/// One finding of one layer, in fragment coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// The rule.
    pub rule: RuleRef,
}

impl Span {
    /// The span as a hit of its rule.
    pub fn hit(&self) -> Hit {
        Hit {
            start: self.start,
            end: self.end,
            rule: self.rule,
        }
    }
}

/// A merged finding: the span replaced and its replacement text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The rule that names the finding.
    pub rule: RuleRef,
    /// `REDACTED` or a personal data label.
    pub replacement: &'static str,
}

/// A secret found by a known format, redacted wherever it occurs.
pub type Known = (Box<str>, RuleRef);

/// What a keyword occurrence sets off.
#[derive(Debug, Clone, Copy)]
enum Trigger {
    Token(u32),
    SchemeSeparator,
    Jdbc,
    PasswordWord,
    At,
}

/// A caller-supplied rule.
pub struct CustomRule {
    /// Its name.
    pub name: String,
    /// Its compiled regex.
    pub regex: Regex,
}

/// Layer 7's regexes.
struct Personal {
    phone: Regex,
    address: Regex,
}

/// The compiled layers of one redactor.
pub struct Engine {
    keywords: Option<AhoCorasick>,
    /// `triggers[pattern]` is the range of `trigger_list` for that keyword.
    triggers: Vec<(u32, u32)>,
    /// A trigger, the length of the keyword that sets it off and that
    /// keyword's offset in the matched one.
    trigger_list: Vec<(Trigger, u32, u32)>,
    tokens: Vec<OnceLock<Option<Regex>>>,
    custom: Vec<CustomRule>,
    personal: Option<Personal>,
}

/// The most rounds of "redact the output again" before giving up on a fixed
/// point (two are the rule, three rare).
pub const MAX_ROUNDS: usize = 16;

/// The shortest secret propagated to its other occurrences.
const MIN_KNOWN_LEN: usize = 8;

fn case_variants(word: &str) -> [String; 3] {
    let lower = word.to_ascii_lowercase();
    let upper = word.to_ascii_uppercase();
    let mut cap = lower.clone();
    if let Some(first) = cap.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    [lower, upper, cap]
}

impl Engine {
    /// Builds the engine: the keyword automaton over every rule keyword, the
    /// caller's rules and, when asked, the personal data layer.
    pub fn new(custom: Vec<CustomRule>, personal_data: bool) -> Engine {
        let mut by_keyword: Vec<(String, Trigger)> = Vec::new();
        for (i, rule) in RULES.iter().enumerate() {
            let id = Trigger::Token(i as u32);
            for kw in rule.keywords {
                by_keyword.push(((*kw).to_owned(), id));
                if rule.any_case {
                    for v in case_variants(kw) {
                        by_keyword.push((v, id));
                    }
                }
            }
        }
        by_keyword.push(("://".to_owned(), Trigger::SchemeSeparator));
        for v in case_variants("jdbc:") {
            by_keyword.push((v, Trigger::Jdbc));
        }
        for w in assign::PASSWORD_WORDS {
            for v in case_variants(w) {
                by_keyword.push((v, Trigger::PasswordWord));
            }
        }
        if personal_data {
            by_keyword.push(("@".to_owned(), Trigger::At));
        }
        // One pattern per distinct keyword. The search is leftmost-longest
        // (the fast, non-overlapping one), so a keyword also carries the
        // triggers of every shorter keyword inside it.
        let mut table: BTreeMap<String, Vec<(Trigger, u32)>> = BTreeMap::new();
        for (kw, t) in &by_keyword {
            let entry = table.entry(kw.clone()).or_default();
            let len = kw.len() as u32;
            if !entry
                .iter()
                .any(|(x, l)| trigger_key(*x) == trigger_key(*t) && *l == len)
            {
                entry.push((*t, len));
            }
        }
        let own: Vec<(String, Vec<(Trigger, u32)>)> = table.into_iter().collect();
        let mut patterns: Vec<String> = Vec::with_capacity(own.len());
        let mut triggers = Vec::with_capacity(own.len());
        let mut trigger_list: Vec<(Trigger, u32, u32)> = Vec::new();
        for (kw, _) in &own {
            let lo = trigger_list.len() as u32;
            // Every keyword inside this one, at its offset: a prefix starts
            // where it starts, and one further in (`password` in npm's
            // `_password`) would otherwise be hidden by the longer match.
            for (inner, ts) in &own {
                for (off, _) in kw.match_indices(inner.as_str()) {
                    for t in ts {
                        if !trigger_list[lo as usize..].iter().any(|(x, l, o)| {
                            trigger_key(*x) == trigger_key(t.0) && *l == t.1 && *o == off as u32
                        }) {
                            trigger_list.push((t.0, t.1, off as u32));
                        }
                    }
                }
            }
            patterns.push(kw.clone());
            triggers.push((lo, trigger_list.len() as u32));
        }
        let keywords = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&patterns)
            .ok();
        let personal = if personal_data {
            match (
                Regex::new(personal::PHONE_PATTERN),
                Regex::new(personal::ADDRESS_PATTERN),
            ) {
                (Ok(phone), Ok(address)) => Some(Personal { phone, address }),
                _ => None,
            }
        } else {
            None
        };
        Engine {
            keywords,
            triggers,
            trigger_list,
            tokens: RULES.iter().map(|_| OnceLock::new()).collect(),
            custom,
            personal,
        }
    }

    /// True when caller rules or personal data may find secrets in a few
    /// bytes (the built-in layers need 7 at least).
    pub fn finds_short_secrets(&self) -> bool {
        !self.custom.is_empty() || self.personal.is_some()
    }

    /// The keyword automaton (for the benchmark's floor).
    pub fn keyword_automaton(&self) -> Option<&AhoCorasick> {
        self.keywords.as_ref()
    }

    /// The name of a rule.
    pub fn name(&self, rule: RuleRef) -> &str {
        match rule {
            RuleRef::Custom(i) => self
                .custom
                .get(i as usize)
                .map_or("custom", |c| c.name.as_str()),
            RuleRef::Token(i) => RULES.get(i as usize).map_or("token", |r| r.name),
            RuleRef::DatabaseUrl => "database_url",
            RuleRef::DatabaseDsn => "database_dsn",
            RuleRef::UrlPassword => "url_password",
            RuleRef::CredentialAssignment => "credential_assignment",
            RuleRef::JsonCredentialField => "json_credential_field",
            RuleRef::Entropy => "entropy",
            RuleRef::Email => "email",
            RuleRef::Phone => "phone",
            RuleRef::Address => "address",
        }
    }

    fn token_regex(&self, i: usize) -> Option<&Regex> {
        let cell = self.tokens.get(i)?;
        cell.get_or_init(|| RULES.get(i).and_then(|r| Regex::new(r.pattern).ok()))
            .as_ref()
    }

    /// Redacts one fragment to a fixed point. Returns the merged spans (empty
    /// when nothing was found) and pushes the known-format secrets found to
    /// `secrets`.
    pub fn redact_fragment(
        &self,
        text: &str,
        known: &[Known],
        secrets: &mut Vec<Known>,
    ) -> Vec<Span> {
        let mut hits = Vec::new();
        self.detect(text, known, &mut hits, Some(secrets));
        if hits.is_empty() {
            return Vec::new();
        }
        let mut spans = merge(&mut hits);
        for _ in 0..MAX_ROUNDS {
            let out = apply(text, &spans);
            let mut again = Vec::new();
            self.detect(&out, known, &mut again, None);
            if again.is_empty() {
                break;
            }
            let before = covered(&spans);
            let mut all: Vec<Hit> = spans
                .iter()
                .map(|s| Hit {
                    start: s.start,
                    end: s.end,
                    rule: s.rule,
                })
                .collect();
            all.extend(again.iter().map(|h| map_back(&spans, h)));
            let next = merge(&mut all);
            if covered(&next) <= before {
                break;
            }
            spans = next;
        }
        spans
    }

    /// Every finding of every layer in `text`, atomic words respected.
    fn detect(
        &self,
        text: &str,
        known: &[Known],
        hits: &mut Vec<Hit>,
        secrets: Option<&mut Vec<Known>>,
    ) {
        let bytes = text.as_bytes();
        // Layer 1.
        entropy::find(text, |s, e| {
            hits.push(Hit {
                start: s,
                end: e,
                rule: RuleRef::Entropy,
            })
        });
        // Layers 2, 3, 4, 6 and the e-mail part of 7, set off by keywords.
        let mut found: Vec<Known> = Vec::new();
        if let Some(ac) = &self.keywords {
            let mut tried = TokenAttempts::default();
            let (mut url_until, mut dsn_until) = (0, 0);
            for m in ac.find_iter(text) {
                let Some(&(lo, hi)) = self.triggers.get(m.pattern().as_usize()) else {
                    continue;
                };
                for &(t, len, off) in self
                    .trigger_list
                    .get(lo as usize..hi as usize)
                    .unwrap_or(&[])
                {
                    let start = m.start() + off as usize;
                    let end = start + len as usize;
                    match t {
                        Trigger::Token(i) => {
                            // A rule with a scan of its own reports its
                            // spans itself (not propagated: see kube.rs).
                            if let Some(scan) = RULES.get(i as usize).and_then(|r| r.scan) {
                                if tried.matched_until.get(&i).is_some_and(|&e| start < e) {
                                    continue;
                                }
                                let rule = RuleRef::Token(i);
                                let until = scan(text, start, end, &mut |s, e| {
                                    hits.push(Hit {
                                        start: s,
                                        end: e,
                                        rule,
                                    })
                                });
                                tried.matched_until.insert(i, until);
                                continue;
                            }
                            if let Some(hit) = self.try_token(text, i, start, end, &mut tried) {
                                found.push((text[hit.start..hit.end].into(), hit.rule));
                                hits.push(hit);
                            }
                        }
                        // A `://` inside a URL already found belongs to it.
                        Trigger::SchemeSeparator if start >= url_until => {
                            if let Some((s, e, kind)) = urls::at_scheme_separator(text, start) {
                                url_until = e;
                                hits.push(Hit {
                                    start: s,
                                    end: e,
                                    rule: url_rule(kind),
                                });
                            }
                        }
                        Trigger::SchemeSeparator => {}
                        Trigger::Jdbc => {
                            if let Some((s, e, kind)) = urls::at_jdbc(text, start) {
                                hits.push(Hit {
                                    start: s,
                                    end: e,
                                    rule: url_rule(kind),
                                });
                            }
                        }
                        Trigger::PasswordWord => {
                            if let Some((s, e)) = assign::at_password_word(text, start, end) {
                                hits.push(Hit {
                                    start: s,
                                    end: e,
                                    rule: RuleRef::CredentialAssignment,
                                });
                            }
                            if start < dsn_until {
                                continue;
                            }
                            if let Some((s, e, kind)) = urls::dsn_at_password(text, start, end) {
                                dsn_until = e;
                                hits.push(Hit {
                                    start: s,
                                    end: e,
                                    rule: url_rule(kind),
                                });
                            }
                        }
                        Trigger::At => {
                            if let Some((s, e)) = personal::email_at(text, start) {
                                hits.push(Hit {
                                    start: s,
                                    end: e,
                                    rule: RuleRef::Email,
                                });
                            }
                        }
                    }
                }
            }
        }
        // Layer 5.
        for (i, rule) in self.custom.iter().enumerate() {
            for m in rule.regex.find_iter(text) {
                let (s, e) = (m.start(), m.end());
                if s < e
                    && text.is_char_boundary(s)
                    && text.is_char_boundary(e)
                    && !is_placeholder(&text[s..e])
                {
                    hits.push(Hit {
                        start: s,
                        end: e,
                        rule: RuleRef::Custom(i as u32),
                    });
                }
            }
        }
        // Layer 7, the parts without a keyword.
        if let Some(p) = &self.personal {
            for m in p.phone.find_iter(text) {
                if personal::phone_ok(text, m.start(), m.end()) {
                    hits.push(Hit {
                        start: m.start(),
                        end: m.end(),
                        rule: RuleRef::Phone,
                    });
                }
            }
            for m in p.address.find_iter(text) {
                hits.push(Hit {
                    start: m.start(),
                    end: m.end(),
                    rule: RuleRef::Address,
                });
            }
        }
        // Every occurrence of a secret found by a known format: one pass
        // over the text for all of them.
        if !found.is_empty() || !known.is_empty() {
            let mut secrets: Vec<&Known> = found
                .iter()
                .chain(known.iter())
                .filter(|(s, _)| s.len() >= MIN_KNOWN_LEN)
                .collect();
            secrets.sort_by(|a, b| a.0.cmp(&b.0));
            secrets.dedup_by(|a, b| a.0 == b.0);
            if let [(secret, rule)] = secrets[..] {
                for at in memmem::find_iter(bytes, secret.as_bytes()) {
                    hits.push(Hit {
                        start: at,
                        end: at + secret.len(),
                        rule: *rule,
                    });
                }
            } else if !secrets.is_empty() {
                let ac = AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(secrets.iter().map(|(s, _)| s.as_bytes()));
                if let Ok(ac) = ac {
                    for m in ac.find_iter(text) {
                        if let Some((_, rule)) = secrets.get(m.pattern().as_usize()) {
                            hits.push(Hit {
                                start: m.start(),
                                end: m.end(),
                                rule: *rule,
                            });
                        }
                    }
                }
            }
        }
        if !hits.is_empty() {
            respect_atomic_words(text, hits);
        }
        if let Some(secrets) = secrets {
            secrets.extend(found);
            // Whole secrets found by a layer other than a known format are
            // redacted at their other occurrences in the document too.
            // Credential assignment values are not: a database password
            // that is a plain word must not take that word everywhere.
            for h in hits.iter() {
                if !h.rule.propagates() {
                    continue;
                }
                let Some(mut s) = text.get(h.start..h.end) else {
                    continue;
                };
                if h.rule == RuleRef::Entropy {
                    // `key=<secret>` is one run: the secret is the value.
                    if let Some(v) = entropy::assignment_value(s.as_bytes()) {
                        s = &s[v..];
                    }
                }
                if s.len() >= MIN_KNOWN_LEN && !s.contains(REDACTED) {
                    secrets.push((s.into(), h.rule));
                }
            }
        }
    }

    /// Layer 2: rule `i` at a keyword occurrence `kw..kw_end`: the secret
    /// it matched, if any.
    fn try_token(
        &self,
        text: &str,
        i: u32,
        kw: usize,
        kw_end: usize,
        tried: &mut TokenAttempts,
    ) -> Option<Hit> {
        let rule = RULES.get(i as usize)?;
        let bytes = text.as_bytes();
        if rule.glue_after_keyword && !glue_at(bytes, kw_end) {
            return None;
        }
        let start = anchor_start(rule, bytes, kw)?;
        if !text.is_char_boundary(start) || (rule.word_start && !at_word_start(bytes, start)) {
            return None;
        }
        if !tried.started.insert((i, start)) {
            return None;
        }
        // Inside an earlier match of the same rule (a keyword repeated in a
        // token): already redacted, and searching again would make long
        // runs of keywords quadratic.
        if tried.matched_until.get(&i).is_some_and(|&end| start < end) {
            return None;
        }
        let re = self.token_regex(i as usize)?;
        let window = start.saturating_add(rule.max_len).min(text.len());
        let input = Input::new(text)
            .range(start..window)
            .anchored(Anchored::Yes);
        let m = re.search(&input)?;
        let (s, e) = if re.captures_len() > 1 {
            let mut caps = re.create_captures();
            re.search_captures(&input, &mut caps);
            match (caps.get_group(1), caps.get_match()) {
                (Some(g), _) => (g.start, g.end),
                (None, Some(m)) => (m.start(), m.end()),
                (None, None) => return None,
            }
        } else {
            (m.start(), m.end())
        };
        if s >= e || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            return None;
        }
        let secret = &text[s..e];
        if is_placeholder(secret) || rule.check.is_some_and(|check| !check(secret)) {
            return None;
        }
        // A token whose body after its keyword is a placeholder (`ghp_xxxx…`,
        // `github_pat_xxxx_xxxx…`, `glsa_AAAA…`, `ghp_0123456789abcdef…`),
        // an identifier (`hf_requiredCharacteristicTypes…`), or a documented
        // example (AWS's `…EXAMPLE`).
        let body = match (s <= kw && kw_end <= e, kw == s, kw_end == e) {
            (true, true, false) => &text[kw_end..e],
            (true, false, true) => &text[s..kw],
            _ => secret,
        };
        if is_placeholder(body)
            || is_placeholder_body(body)
            || is_typed_sequence(body)
            || reads_as_words(body)
            || is_documented_example(secret)
        {
            return None;
        }
        tried.matched_until.insert(i, m.end());
        Some(Hit {
            start: s,
            end: e,
            rule: RuleRef::Token(i),
        })
    }
}

/// An assignment's operator at `at`: after an optional quote (and `]`, as
/// in `dict["secret"] =`), up to 4 spaces or tabs and an optional Go type
/// (`string`), one of `=`, `:`, `.=`, `?=`; or `,` right after a quote (a
/// call's next argument).
fn glue_at(bytes: &[u8], mut at: usize) -> bool {
    let quoted = matches!(bytes.get(at), Some(b'"' | b'\''));
    if quoted {
        at += 1;
    }
    if bytes.get(at) == Some(&b']') {
        at += 1;
    }
    if bytes.get(at..at + 2) == Some(b"[]") {
        at += 2;
    }
    let spaces = |at: &mut usize| {
        let limit = *at + 4;
        while *at < limit && matches!(bytes.get(*at), Some(b' ' | b'\t')) {
            *at += 1;
        }
    };
    spaces(&mut at);
    if quoted && bytes.get(at) == Some(&b',') {
        return true;
    }
    for ty in [&b"string"[..], b"String"] {
        if bytes.get(at..at + ty.len()) == Some(ty)
            && matches!(bytes.get(at + ty.len()), Some(b' ' | b'\t'))
        {
            at += ty.len();
            spaces(&mut at);
            break;
        }
    }
    match bytes.get(at) {
        Some(b'=' | b':') => true,
        Some(b'.' | b'?') => bytes.get(at + 1) == Some(&b'='),
        _ => false,
    }
}

/// The token rules already tried in one fragment.
#[derive(Default)]
struct TokenAttempts {
    /// (rule, anchored start) pairs searched.
    started: HashSet<(u32, usize)>,
    /// Per rule, the end of its last match.
    matched_until: HashMap<u32, usize>,
}

/// Distinguishes triggers when deduplicating keywords.
fn trigger_key(t: Trigger) -> usize {
    match t {
        Trigger::Token(i) => i as usize,
        Trigger::SchemeSeparator => usize::MAX,
        Trigger::Jdbc => usize::MAX - 1,
        Trigger::PasswordWord => usize::MAX - 2,
        Trigger::At => usize::MAX - 3,
    }
}

fn url_rule(kind: UrlKind) -> RuleRef {
    match kind {
        UrlKind::UrlPassword => RuleRef::UrlPassword,
        UrlKind::DatabaseUrl => RuleRef::DatabaseUrl,
        UrlKind::DatabaseDsn => RuleRef::DatabaseDsn,
    }
}

fn anchor_start(rule: &Rule, bytes: &[u8], kw: usize) -> Option<usize> {
    match rule.anchor {
        Anchor::Keyword => Some(kw),
        Anchor::Ident => {
            let s = scan_back(bytes, kw, 64, |b| {
                b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
            });
            Some(skip_escape_letter(bytes, s, kw))
        }
        Anchor::Digits => Some(scan_back(bytes, kw, 16, |b| b.is_ascii_digit())),
        Anchor::Url => {
            if kw >= 3 && &bytes[kw - 3..kw] == b"://" {
                let s = scan_back(bytes, kw - 3, 32, |b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
                });
                Some(skip_escape_letter(bytes, s, kw - 3))
            } else {
                Some(kw)
            }
        }
        Anchor::Before(n) => kw.checked_sub(n),
    }
}

/// Every occurrence of the known secrets in `text` (a skipped JSON value),
/// merged; atomic words respected.
pub fn known_spans(text: &str, known: &[Known]) -> Vec<Span> {
    let mut hits = Vec::new();
    for (secret, rule) in known {
        if secret.len() > text.len() {
            continue;
        }
        for at in memmem::find_iter(text.as_bytes(), secret.as_bytes()) {
            hits.push(Hit {
                start: at,
                end: at + secret.len(),
                rule: *rule,
            });
        }
    }
    if hits.is_empty() {
        return Vec::new();
    }
    respect_atomic_words(text, &mut hits);
    merge(&mut hits)
}

/// Drops hits inside an occurrence of `REDACTED` (or a label) and widens
/// hits that cross one's edge to take it whole.
fn respect_atomic_words(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    let mut words: Vec<(usize, usize)> = Vec::new();
    for at in memmem::find_iter(bytes, REDACTED.as_bytes()) {
        let mut s = at;
        let mut e = at + REDACTED.len();
        for label in [EMAIL_LABEL, PHONE_LABEL, ADDRESS_LABEL] {
            if at >= 1 && bytes[at - 1] == b'[' && bytes[at - 1..].starts_with(label.as_bytes()) {
                s = at - 1;
                e = at - 1 + label.len();
            }
        }
        words.push((s, e));
    }
    if words.is_empty() {
        return;
    }
    // Words are sorted and disjoint: look only at those a hit can touch.
    hits.retain_mut(|h| {
        let mut k = words.partition_point(|&(_, we)| we <= h.start);
        while let Some(&(ws, we)) = words.get(k) {
            if ws >= h.end {
                break;
            }
            if ws <= h.start && h.end <= we {
                return false;
            }
            h.start = h.start.min(ws);
            h.end = h.end.max(we);
            k += 1;
        }
        true
    });
}

/// Sorts hits (by start, longer first, then by layer) and joins those that
/// overlap or touch.
pub fn merge(hits: &mut [Hit]) -> Vec<Span> {
    hits.sort_unstable_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.rank().cmp(&b.rule.rank()))
    });
    let mut out: Vec<Span> = Vec::new();
    for h in hits.iter() {
        if h.start >= h.end {
            continue;
        }
        if let Some(last) = out.last_mut() {
            if h.start <= last.end {
                if h.end > last.end {
                    last.end = h.end;
                }
                if h.rule.replacement() != last.replacement {
                    last.replacement = REDACTED;
                }
                // The most specific rule names the joined finding.
                if h.rule.rank() < last.rule.rank() {
                    last.rule = h.rule;
                }
                continue;
            }
        }
        out.push(Span {
            start: h.start,
            end: h.end,
            rule: h.rule,
            replacement: h.rule.replacement(),
        });
    }
    out
}

/// `text` with every span replaced.
pub fn apply(text: &str, spans: &[Span]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in spans {
        if s.start < at || s.end > text.len() {
            continue;
        }
        out.push_str(&text[at..s.start]);
        out.push_str(s.replacement);
        at = s.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Bytes of the original covered by spans.
pub fn covered(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.end - s.start).sum()
}

/// A hit in the output of `apply(text, spans)` mapped back to `text`: a
/// position inside a replacement maps to the whole replaced span.
pub fn map_back(spans: &[Span], h: &Hit) -> Hit {
    Hit {
        start: map_pos(spans, h.start, false),
        end: map_pos(spans, h.end, true),
        rule: h.rule,
    }
}

fn map_pos(spans: &[Span], x: usize, is_end: bool) -> usize {
    // Shift before each span: original = output + shift.
    let mut shift: isize = 0;
    for s in spans {
        let out_start = (s.start as isize - shift) as usize;
        let out_end = out_start + s.replacement.len();
        if x < out_start || (is_end && x == out_start) {
            break;
        }
        if x < out_end || (is_end && x == out_end) {
            return if is_end { s.end } else { s.start };
        }
        shift += (s.end - s.start) as isize - s.replacement.len() as isize;
    }
    (x as isize + shift) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize) -> Span {
        Span {
            start,
            end,
            rule: RuleRef::Entropy,
            replacement: REDACTED,
        }
    }

    #[test]
    fn merge_joins_overlaps_named_by_the_most_specific_rule() {
        let mut hits = vec![
            Hit {
                start: 5,
                end: 9,
                rule: RuleRef::Entropy,
            },
            Hit {
                start: 0,
                end: 3,
                rule: RuleRef::Token(0),
            },
            Hit {
                start: 0,
                end: 6,
                rule: RuleRef::Entropy,
            },
            Hit {
                start: 20,
                end: 25,
                rule: RuleRef::Email,
            },
        ];
        let spans = merge(&mut hits);
        assert_eq!(spans.len(), 2);
        assert_eq!(
            (spans[0].start, spans[0].end, spans[0].rule),
            (0, 9, RuleRef::Token(0))
        );
        assert_eq!(
            (spans[1].start, spans[1].end, spans[1].replacement),
            (20, 25, EMAIL_LABEL)
        );
    }

    #[test]
    fn positions_map_back_through_replacements() {
        // "aaSECRETbb" -> "aaREDACTEDbb" with the secret at 2..8.
        let spans = [span(2, 8)];
        assert_eq!(apply("aaSECRETbb", &spans), "aaREDACTEDbb");
        assert_eq!(map_pos(&spans, 0, false), 0);
        assert_eq!(map_pos(&spans, 2, false), 2);
        assert_eq!(map_pos(&spans, 5, false), 2);
        assert_eq!(map_pos(&spans, 5, true), 8);
        assert_eq!(map_pos(&spans, 10, false), 8);
        assert_eq!(map_pos(&spans, 12, true), 10);
        assert_eq!(map_pos(&spans, 2, true), 2);
    }

    #[test]
    fn atomic_words() {
        let text = "xx REDACTED yy";
        let mut hits = vec![
            Hit {
                start: 4,
                end: 7,
                rule: RuleRef::Entropy,
            },
            Hit {
                start: 9,
                end: 14,
                rule: RuleRef::Entropy,
            },
        ];
        respect_atomic_words(text, &mut hits);
        assert_eq!(
            hits,
            vec![Hit {
                start: 3,
                end: 14,
                rule: RuleRef::Entropy
            }]
        );
    }
}
