//! Listing a remote's checkpoint refs, asking it for nothing else: a
//! protocol v2 `ls-refs` with one `ref-prefix` per namespace
//! (`refs/entire/checkpoints/`, the v1 branch), so a remote holding
//! thousands of other refs (branches, tags, pull-request refs) sends only
//! ours. `git ls-remote <remote> <pattern>` cannot do that: its patterns
//! match the ends of names, so it asks for every ref and filters them
//! itself.
//!
//! The request is made here for the transports whose connection is
//! simple and that git would make the same way — a local repository (a
//! path or `file://`: `git upload-pack <path>` with `GIT_PROTOCOL=version=2`,
//! as git runs it) and `git://` (the daemon's TCP protocol). Anything else
//! (ssh, http(s), a remote helper), any configuration that changes how git
//! would connect (`remote.<name>.uploadpack`, `core.gitProxy`,
//! `protocol.*`, a `protocol.version` other than 2), a server that does
//! not answer in protocol v2, and any failure of this request fall back to
//! `git ls-remote <remote> refs/entire/checkpoints/* <v1 branch>`, whose
//! answer (or error) is git's own.

use std::io::{BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use gix::ObjectId;

use crate::remote::git_program::{remote_error, GitProgram};
use crate::remote::promisor::effective_url;
use agent_checkpoint::Result;

/// How long a connection may take to open, and a read to answer.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The longest pkt-line payload git sends.
const MAX_PACKET: usize = 65516;

/// What a remote holds under the namespaces asked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing {
    /// Each ref with its tip, as the remote sent them (not yet checked).
    pub refs: Vec<(String, ObjectId)>,
    /// Whether the remote serves filtered fetches (protocol v2 `fetch`
    /// with `filter`), when the listing was made here; `None` after
    /// `git ls-remote`, which does not say.
    pub filter: Option<bool>,
}

/// The refs of `remote` under `prefixes` (each a namespace ending in `/`,
/// or one ref's full name).
///
/// # Errors
/// `remote_unreachable` / `auth_failed` from `git ls-remote`.
pub(crate) fn list(
    git: &GitProgram,
    repo: &gix::Repository,
    remote: &str,
    prefixes: &[&str],
) -> Result<Listing> {
    if let Some(listing) =
        transport(git, repo, remote).and_then(|t| t.list(repo.object_hash(), prefixes).ok())
    {
        return Ok(listing);
    }
    ls_remote(git, repo, remote, prefixes)
}

/// `git ls-remote <remote> <prefix>* ...`.
fn ls_remote(
    git: &GitProgram,
    repo: &gix::Repository,
    remote: &str,
    prefixes: &[&str],
) -> Result<Listing> {
    let patterns: Vec<String> = prefixes
        .iter()
        .map(|p| {
            if p.ends_with('/') {
                format!("{p}*")
            } else {
                (*p).to_owned()
            }
        })
        .collect();
    let mut args = vec!["ls-remote", remote];
    args.extend(patterns.iter().map(String::as_str));
    let out = git.run(&args, None)?;
    if !out.status.success() {
        return Err(remote_error(remote, &String::from_utf8_lossy(&out.stderr)));
    }
    let mut refs = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(r) = parse_ref_line(line, '\t', repo.object_hash()) {
            refs.push(r);
        }
    }
    Ok(Listing { refs, filter: None })
}

/// `<oid><sep><name>[ attributes]` as a ref and its tip.
fn parse_ref_line(line: &str, sep: char, hash: gix::hash::Kind) -> Option<(String, ObjectId)> {
    let (oid, rest) = line.split_once(sep)?;
    let name = rest.split(' ').next()?.trim_end();
    let oid = ObjectId::from_hex(oid.trim().as_bytes()).ok()?;
    (oid.kind() == hash && !name.is_empty()).then(|| (name.to_owned(), oid))
}

/// A connection this module makes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Transport {
    /// A repository on this machine, served by `git upload-pack <path>`
    /// run from `cwd`.
    Local { path: String, cwd: PathBuf },
    /// `git://host[:port]/path`.
    Daemon {
        host: String,
        port: u16,
        path: String,
    },
}

/// Environment variables that change how git connects or what it allows.
const TRANSPORT_ENV: &[&str] = &[
    "GIT_ALLOW_PROTOCOL",
    "GIT_PROTOCOL_FROM_USER",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_PROTOCOL",
];

/// The transport for `remote` when this module may make the connection
/// itself, exactly as git would; `None` otherwise.
fn transport(git: &GitProgram, repo: &gix::Repository, remote: &str) -> Option<Transport> {
    if TRANSPORT_ENV.iter().any(|v| std::env::var_os(v).is_some()) {
        return None;
    }
    let config = repo.config_snapshot();
    if let Some(v) = config.string("protocol.version") {
        if AsRef::<[u8]>::as_ref(&*v) != b"2" {
            return None;
        }
    }
    let remote_key = |key: &str| format!("remote.{remote}.{key}");
    let changes_connection = ["protocol.allow", "core.gitProxy"]
        .iter()
        .map(|k| (*k).to_owned())
        .chain(["uploadpack", "vcs"].iter().map(|k| remote_key(k)))
        .any(|k| config.string(k.as_str()).is_some());
    let scoped = config
        .plumbing()
        .sections_by_name("protocol")
        .is_some_and(|mut s| s.any(|s| s.header().subsection_name().is_some()));
    if changes_connection || scoped {
        return None;
    }
    let url = effective_url(git, remote)?;
    parse_transport(&url, git.cwd())
}

/// The transport of `url` (as `git ls-remote --get-url` printed it), for
/// the forms handled here.
fn parse_transport(url: &str, cwd: &std::path::Path) -> Option<Transport> {
    if url.contains('%') || url.chars().any(|c| c.is_control()) {
        return None;
    }
    if let Some(path) = url.strip_prefix("file://") {
        return path.starts_with('/').then(|| Transport::Local {
            path: path.to_owned(),
            cwd: cwd.to_path_buf(),
        });
    }
    if let Some(rest) = url.strip_prefix("git://") {
        let (authority, path) = rest.split_at(rest.find('/')?);
        if authority.contains('@') || authority.starts_with('[') || path.len() < 2 {
            return None;
        }
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, p.parse().ok()?),
            None => (authority, 9418),
        };
        if host.is_empty() || path.starts_with("/~") {
            return None;
        }
        return Some(Transport::Daemon {
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        });
    }
    if url.contains("://") {
        return None;
    }
    // git's rule: a `:` before the first `/` is the scp-like ssh form.
    let colon = url.find(':');
    let slash = url.find('/');
    let scp = match (colon, slash) {
        (Some(c), Some(s)) => c < s,
        (Some(_), None) => true,
        _ => false,
    };
    (!scp && !url.starts_with('-')).then(|| Transport::Local {
        path: url.to_owned(),
        cwd: cwd.to_path_buf(),
    })
}

/// A pkt-line with `payload`.
fn packet(payload: &str) -> Vec<u8> {
    let mut out = format!("{:04x}", payload.len() + 4).into_bytes();
    out.extend_from_slice(payload.as_bytes());
    out
}

/// One pkt-line read: `Some(bytes)` for data, `None` for a flush, delim
/// or response-end packet.
fn read_packet(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = std::str::from_utf8(&len)
        .ok()
        .and_then(|s| usize::from_str_radix(s, 16).ok())
        .ok_or_else(|| std::io::Error::other("bad pkt-line length"))?;
    if len < 4 {
        return Ok(None);
    }
    if len > MAX_PACKET + 4 {
        return Err(std::io::Error::other("pkt-line too long"));
    }
    let mut data = vec![0u8; len - 4];
    r.read_exact(&mut data)?;
    Ok(Some(data))
}

/// The server's capabilities (protocol v2's advertisement, after
/// `version 2`); `Err` when it does not speak protocol v2.
fn capabilities(r: &mut impl Read) -> std::io::Result<Vec<String>> {
    let first = read_packet(r)?.unwrap_or_default();
    if String::from_utf8_lossy(&first).trim_end() != "version 2" {
        return Err(std::io::Error::other(
            "the server does not speak protocol v2",
        ));
    }
    let mut caps = Vec::new();
    while let Some(line) = read_packet(r)? {
        caps.push(String::from_utf8_lossy(&line).trim_end().to_owned());
    }
    Ok(caps)
}

/// The `ls-refs` request for `prefixes`, after the advertisement `caps`;
/// `Err` when the server lacks `ls-refs` or uses another object format.
fn request(caps: &[String], hash: gix::hash::Kind, prefixes: &[&str]) -> std::io::Result<Vec<u8>> {
    if !caps
        .iter()
        .any(|c| c == "ls-refs" || c.starts_with("ls-refs="))
    {
        return Err(std::io::Error::other("the server has no ls-refs"));
    }
    let ours = match hash {
        gix::hash::Kind::Sha256 => "sha256",
        _ => "sha1",
    };
    let format = caps.iter().find_map(|c| c.strip_prefix("object-format="));
    let mut out = packet("command=ls-refs\n");
    match format {
        Some(f) if f == ours => out.extend(packet(&format!("object-format={ours}\n"))),
        None if ours == "sha1" => {}
        _ => return Err(std::io::Error::other("another object format")),
    }
    out.extend_from_slice(b"0001");
    for p in prefixes {
        out.extend(packet(&format!("ref-prefix {p}\n")));
    }
    out.extend_from_slice(b"0000");
    Ok(out)
}

/// Whether `caps` offers filtered fetches.
fn serves_filters(caps: &[String]) -> bool {
    caps.iter()
        .filter_map(|c| c.strip_prefix("fetch="))
        .any(|f| f.split(' ').any(|x| x == "filter"))
}

/// The refs of an `ls-refs` answer, up to its flush.
fn answer(r: &mut impl Read, hash: gix::hash::Kind) -> std::io::Result<Vec<(String, ObjectId)>> {
    let mut refs = Vec::new();
    while let Some(line) = read_packet(r)? {
        let line = String::from_utf8_lossy(&line);
        if line.starts_with("ERR ") {
            return Err(std::io::Error::other(line.trim_end().to_owned()));
        }
        if let Some(r) = parse_ref_line(line.trim_end(), ' ', hash) {
            refs.push(r);
        }
    }
    Ok(refs)
}

impl Transport {
    /// Lists the refs under `prefixes` over this transport.
    fn list(&self, hash: gix::hash::Kind, prefixes: &[&str]) -> std::io::Result<Listing> {
        match self {
            Transport::Local { path, cwd } => {
                let mut child = Command::new("git")
                    .args(["upload-pack", "--timeout=30", "--"])
                    .arg(path)
                    .current_dir(cwd)
                    .env("GIT_PROTOCOL", "version=2")
                    .env("LC_ALL", "C")
                    .env_remove("GIT_DIR")
                    .env_remove("GIT_WORK_TREE")
                    .env_remove("GIT_INDEX_FILE")
                    .env_remove("GIT_NAMESPACE")
                    .env_remove("GIT_OBJECT_DIRECTORY")
                    .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
                    .env_remove("GIT_COMMON_DIR")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()?;
                let result = (|| {
                    let mut out = BufReader::new(
                        child
                            .stdout
                            .take()
                            .ok_or_else(|| std::io::Error::other("no stdout"))?,
                    );
                    let mut input = child
                        .stdin
                        .take()
                        .ok_or_else(|| std::io::Error::other("no stdin"))?;
                    let caps = capabilities(&mut out)?;
                    input.write_all(&request(&caps, hash, prefixes)?)?;
                    input.flush()?;
                    let refs = answer(&mut out, hash)?;
                    // No further request: the server ends.
                    let _ = input.write_all(b"0000");
                    drop(input);
                    Ok(Listing {
                        refs,
                        filter: Some(serves_filters(&caps)),
                    })
                })();
                if result.is_err() {
                    let _ = child.kill();
                }
                let status = child.wait()?;
                match result {
                    Ok(listing) if status.success() => Ok(listing),
                    Ok(_) => Err(std::io::Error::other("upload-pack failed")),
                    Err(e) => Err(e),
                }
            }
            Transport::Daemon { host, port, path } => {
                let addr = (host.as_str(), *port)
                    .to_socket_addrs()?
                    .next()
                    .ok_or_else(|| std::io::Error::other("no address"))?;
                let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT)?;
                stream.set_read_timeout(Some(TIMEOUT))?;
                stream.set_write_timeout(Some(TIMEOUT))?;
                let host_arg = if *port == 9418 {
                    host.clone()
                } else {
                    format!("{host}:{port}")
                };
                stream.write_all(&packet(&format!(
                    "git-upload-pack {path}\0host={host_arg}\0\0version=2\0"
                )))?;
                let mut reader = BufReader::new(stream.try_clone()?);
                let caps = capabilities(&mut reader)?;
                stream.write_all(&request(&caps, hash, prefixes)?)?;
                let refs = answer(&mut reader, hash)?;
                let _ = stream.write_all(b"0000");
                Ok(Listing {
                    refs,
                    filter: Some(serves_filters(&caps)),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn transports_git_would_make_the_same_way() {
        let cwd = Path::new("/w");
        assert_eq!(
            parse_transport("file:///srv/r.git", cwd),
            Some(Transport::Local {
                path: "/srv/r.git".into(),
                cwd: cwd.into()
            })
        );
        assert_eq!(
            parse_transport("../r.git", cwd),
            Some(Transport::Local {
                path: "../r.git".into(),
                cwd: cwd.into()
            })
        );
        assert_eq!(
            parse_transport("git://127.0.0.1:9999/remote.git", cwd),
            Some(Transport::Daemon {
                host: "127.0.0.1".into(),
                port: 9999,
                path: "/remote.git".into()
            })
        );
        assert_eq!(
            parse_transport("git://h/r.git", cwd),
            Some(Transport::Daemon {
                host: "h".into(),
                port: 9418,
                path: "/r.git".into()
            })
        );
        for other in [
            "https://example.com/r.git",
            "ssh://h/r.git",
            "git@example.com:o/r.git",
            "file://relative",
            "file:///a%20b",
            "git://[::1]/r.git",
            "ext::sh -c x",
            "-x",
        ] {
            assert_eq!(parse_transport(other, cwd), None, "{other}");
        }
    }

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    #[test]
    fn a_local_repository_sends_only_the_namespaces_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "--bare", "r.git"]);
        let r = dir.path().join("r.git");
        let tree = git(&r, &["hash-object", "-t", "tree", "-w", "/dev/null"]);
        let commit = git(
            &r,
            &[
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@e",
                "commit-tree",
                &tree,
                "-m",
                "x",
            ],
        );
        for name in [
            "refs/heads/main",
            "refs/pull/1/head",
            "refs/entire/checkpoints/ZN/a",
            "refs/heads/entire/checkpoints/v1",
        ] {
            git(&r, &["update-ref", name, &commit]);
        }
        let local = Transport::Local {
            path: r.display().to_string(),
            cwd: dir.path().to_path_buf(),
        };
        let listing = local
            .list(
                gix::hash::Kind::Sha1,
                &[
                    "refs/entire/checkpoints/",
                    "refs/heads/entire/checkpoints/v1",
                ],
            )
            .unwrap();
        let mut names: Vec<&str> = listing.refs.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "refs/entire/checkpoints/ZN/a",
                "refs/heads/entire/checkpoints/v1"
            ]
        );
        assert_eq!(listing.filter, Some(false), "uploadpack.allowFilter is off");
    }

    #[test]
    fn pkt_lines_and_the_request() {
        assert_eq!(packet("a\n"), b"0006a\n");
        let mut advert = Vec::new();
        for line in [
            "version 2\n",
            "ls-refs=unborn\n",
            "fetch=shallow wait-for-done filter\n",
            "object-format=sha1\n",
        ] {
            advert.extend(packet(line));
        }
        advert.extend_from_slice(b"0000");
        let mut r: &[u8] = &advert;
        let caps = capabilities(&mut r).unwrap();
        assert!(serves_filters(&caps));
        let req = request(&caps, gix::hash::Kind::Sha1, &["refs/entire/checkpoints/"]).unwrap();
        assert_eq!(
            String::from_utf8(req).unwrap(),
            "0014command=ls-refs\n0017object-format=sha1\n00010028ref-prefix refs/entire/checkpoints/\n0000"
        );
        assert!(request(&caps, gix::hash::Kind::Sha256, &[]).is_err());
        let mut v0 = packet("1111111111111111111111111111111111111111 HEAD\0caps\n");
        v0.extend_from_slice(b"0000");
        assert!(capabilities(&mut v0.as_slice()).is_err());
        let mut ans = packet("2222222222222222222222222222222222222222 refs/entire/x y\n");
        ans.extend_from_slice(b"0000");
        let refs = answer(&mut ans.as_slice(), gix::hash::Kind::Sha1).unwrap();
        assert_eq!(refs[0].0, "refs/entire/x");
    }
}
