//! One sextant per workspace: `sextant serve` relays to the workspace's
//! shared instance, started by the first relay. Real processes throughout:
//! the built binary's relays driven by rmcp's client, the instance they
//! start, the language servers it runs, all checked by pid. Each test has
//! a meeting place of its own (`$XDG_RUNTIME_DIR`), and its instances end
//! with their last session (`--idle-exit 0`).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::descendants;
use common::mcp::{Client, answer_of, call, meeting_place, send_call, start_shared, texts};
use serde_json::{Value, json};

/// The instance serving `client`, as `logs` shows it: its pid and log.
async fn instance_of(client: &Client) -> (u32, PathBuf) {
    let logs = texts(&call(client, "logs", json!({})).await).join("\n");
    let line = logs
        .lines()
        .find_map(|line| line.strip_prefix("Shared instance: pid "))
        .unwrap_or_else(|| panic!("no shared instance in logs:\n{logs}"));
    let pid = line.split(',').next().unwrap().parse().unwrap();
    let log = line.rsplit("log: ").next().unwrap();
    (pid, PathBuf::from(log))
}

/// The instances running for `root`, by their command lines.
fn instances_for(root: &Path) -> Vec<u32> {
    let root = root.canonicalize().unwrap();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let words: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if words.iter().any(|w| w == "--instance")
            && words.iter().any(|w| Path::new(w) == root)
            && common::process_exists(pid)
        {
            pids.push(pid);
        }
    }
    pids
}

/// Each session's view of the tools it may call.
async fn tool_names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// Ten sessions at once, each starting both servers: one instance, one
/// server process per language, each session with its own mode; when the
/// last session ends the instance ends, and every process it started with
/// it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_sessions_share_one_instance_and_one_server_per_language() {
    let workspace = common::two_language_workspace();
    let place = meeting_place();
    let starts = (0..10).map(|n| {
        let (root, place) = (workspace.path().to_path_buf(), place.path().to_path_buf());
        async move {
            let extra: &[&str] = if n == 0 { &["--read-only"] } else { &[] };
            start_shared(&root, &place, None, extra).await.0
        }
    });
    let clients = futures::future::join_all(starts).await;
    let calls = clients.iter().map(|client| async move {
        let ts = call(
            client,
            "references",
            json!({"file": "web/src/shapes.ts", "symbol": "Circle"}),
        )
        .await;
        let rust = call(
            client,
            "references",
            json!({"file": "ledger/src/lib.rs", "symbol": "Ledger.total"}),
        )
        .await;
        (texts(&ts).join("\n"), texts(&rust).join("\n"))
    });
    let answers = futures::future::join_all(calls).await;
    for (ts, rust) in &answers {
        assert!(ts.contains("Found 10 references to Circle"), "{ts}");
        assert!(rust.contains("references to total"), "{rust}");
    }
    assert_eq!(instances_for(workspace.path()).len(), 1);
    let (pid, _) = instance_of(&clients[1]).await;
    let logs = texts(&call(&clients[1], "logs", json!({})).await).join("\n");
    assert!(logs.contains(", 10 sessions, "), "{logs}");
    let tree = descendants(pid);
    let named = |name: &str| tree.iter().filter(|(_, n)| n == name).count();
    assert_eq!(named("tsc"), 1, "{tree:?}");
    assert_eq!(named("rust-analyzer"), 1, "{tree:?}");
    // The read-only session sees no writing tools; the others do.
    let read_only = tool_names(&clients[0]).await;
    let writing = tool_names(&clients[1]).await;
    assert!(
        !read_only.iter().any(|t| t == "apply_patch"),
        "{read_only:?}"
    );
    assert!(writing.iter().any(|t| t == "apply_patch"), "{writing:?}");
    for client in clients {
        client.cancel().await.unwrap();
    }
    assert!(
        common::process_gone(pid).await,
        "the idle instance lives on"
    );
    for (child, name) in &tree {
        assert!(
            common::process_gone(*child).await,
            "{name} (pid {child}) outlived the instance"
        );
    }
}

/// Relays starting at once make exactly one instance (the rendezvous
/// lock); a patch one session previewed cannot be applied from another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_relays_start_one_instance_and_keep_their_patches() {
    let f = common::fixture("ts");
    let place = meeting_place();
    let starts = (0..4).map(|_| start_shared(f.root(), place.path(), None, &[]));
    let clients: Vec<Client> = futures::future::join_all(starts)
        .await
        .into_iter()
        .map(|(client, _)| client)
        .collect();
    let mut pids = Vec::new();
    for client in &clients {
        pids.push(instance_of(client).await.0);
    }
    pids.dedup();
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert_eq!(instances_for(f.root()), pids);
    let report = doctor(f.root(), place.path());
    assert!(
        report.contains(&format!(
            "Shared instance: pid {}, 4 sessions, up ",
            pids[0]
        )),
        "{report}"
    );
    let preview = texts(
        &call(
            &clients[0],
            "edit",
            json!({"path": "src/shapes.ts", "old_string": "export class Circle", "new_string": "export class Round"}),
        )
        .await,
    )
    .join("\n");
    let id = preview
        .split("patch: ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_alphanumeric()).next())
        .unwrap_or_else(|| panic!("no patch id in {preview}"));
    let elsewhere = call(&clients[1], "apply_patch", json!({"patch": id})).await;
    assert_eq!(elsewhere.is_error, Some(true));
    assert!(
        texts(&elsewhere)[0].starts_with("error[unknown-patch]"),
        "{:?}",
        texts(&elsewhere)
    );
    let applied = call(&clients[0], "apply_patch", json!({"patch": id})).await;
    assert_ne!(applied.is_error, Some(true), "{:?}", texts(&applied));
    assert!(f.read("src/shapes.ts").contains("export class Round"));
    for client in clients {
        client.cancel().await.unwrap();
    }
    assert!(common::process_gone(pids[0]).await);
    let report = doctor(f.root(), place.path());
    assert!(
        report.contains("Shared instance: none running; `sextant serve` starts one"),
        "{report}"
    );
}

/// `sextant doctor` on the workspace, with `place` as the meeting place.
fn doctor(root: &Path, place: &Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
        .arg("doctor")
        .arg("--root")
        .arg(root)
        .env("XDG_RUNTIME_DIR", place)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A call cancelled in one session leaves the other sessions' calls
/// answered, and its own session working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_leaves_the_other_sessions_answered() {
    let workspace = common::two_language_workspace();
    let place = meeting_place();
    let (first, _) = start_shared(workspace.path(), place.path(), None, &[]).await;
    let (second, _) = start_shared(workspace.path(), place.path(), None, &[]).await;
    // The workspace's diagnostics wait for rust-analyzer's cargo check.
    let slow = send_call(&first, "diagnostics", json!({})).await;
    let answered = call(
        &second,
        "references",
        json!({"file": "web/src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    slow.cancel(Some("the agent moved on".into()))
        .await
        .unwrap();
    assert!(
        texts(&answered)[0].contains("Found 10 references to Circle"),
        "{:?}",
        texts(&answered)
    );
    let again = call(&first, "read", json!({"file": "web/src/shapes.ts"})).await;
    assert!(
        texts(&again)[0].starts_with("Found "),
        "{:?}",
        texts(&again)
    );
    let after = call(&second, "search", json!({"query": "Ledger"})).await;
    assert!(
        texts(&after).join("\n").contains("Struct - Ledger"),
        "{:?}",
        texts(&after)
    );
}

/// The instance killed mid-call: the call in flight gets a clear error,
/// nothing the instance started outlives it, and the next call starts a
/// new instance (over the dead one's stale socket) and is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_instance_fails_the_call_in_flight_and_the_next_starts_another() {
    // `.fake` files are served by the fake server in a mode that never
    // answers an outline: a call on one stays in flight until the kill.
    let config = format!(
        "[language.fake]\ncommand = {:?}\nargs = [\"hang\", \"state\"]\n\
         extensions = [\"fake\"]\nrequest_timeout = 600\n",
        common::fake_server().display().to_string()
    );
    let f = common::fixture_with(
        "ts",
        &[
            ("sextant.toml", config.as_str()),
            ("main.fake", "fn fake() {}\n"),
            ("state/.keep", ""),
        ],
    );
    let place = meeting_place();
    let (client, _) = start_shared(f.root(), place.path(), None, &[]).await;
    let warm = call(&client, "diagnostics", json!({"file": "src/shapes.ts"})).await;
    assert_eq!(texts(&warm), ["No errors or warnings in src/shapes.ts"]);
    let (pid, log) = instance_of(&client).await;
    let in_flight = send_call(&client, "read", json!({"file": "main.fake"})).await;
    // The fake server starts when the instance has the call: from then on
    // the call is the instance's, not the relay's.
    let mut tree = descendants(pid);
    for _ in 0..200 {
        if tree.iter().any(|(_, name)| name == "fake_lsp") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        tree = descendants(pid);
    }
    assert!(tree.iter().any(|(_, name)| name == "tsc"), "{tree:?}");
    assert!(tree.iter().any(|(_, name)| name == "fake_lsp"), "{tree:?}");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let failed = answer_of(in_flight).await;
    assert_eq!(failed.is_error, Some(true));
    assert!(
        texts(&failed)[0].starts_with(
            "error[instance-ended]: sextant's shared instance for this workspace ended before answering"
        ),
        "{:?}",
        texts(&failed)
    );
    for (child, name) in &tree {
        assert!(
            common::process_gone(*child).await,
            "{name} (pid {child}) outlived the killed instance"
        );
    }
    assert!(log.with_extension("sock").exists(), "the socket is stale");
    let next = call(&client, "diagnostics", json!({"file": "src/shapes.ts"})).await;
    assert_eq!(
        texts(&next),
        ["No errors or warnings in src/shapes.ts"],
        "{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let (new_pid, _) = instance_of(&client).await;
    assert_ne!(new_pid, pid);
    client.cancel().await.unwrap();
    assert!(common::process_gone(new_pid).await);
}

/// A relay of another build never talks to the running instance: it
/// starts its own beside it, and each ends with its sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_of_another_build_starts_its_own_instance() {
    let f = common::fixture("ts");
    let place = meeting_place();
    let builds = tempfile::tempdir().unwrap();
    let other = builds.path().join("sextant");
    std::fs::copy(env!("CARGO_BIN_EXE_sextant"), &other).unwrap();
    // Another build: the same version, another binary.
    std::fs::File::options()
        .write(true)
        .open(&other)
        .unwrap()
        .set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(86_400))
        .unwrap();
    let (this, _) = start_shared(f.root(), place.path(), None, &[]).await;
    let (that, _) = start_shared(f.root(), place.path(), Some(&other), &[]).await;
    let (this_pid, this_log) = instance_of(&this).await;
    let (that_pid, that_log) = instance_of(&that).await;
    assert_ne!(this_pid, that_pid);
    assert_ne!(this_log, that_log);
    for client in [&this, &that] {
        let answer = call(client, "search", json!({"query": "Circle"})).await;
        assert!(
            texts(&answer)[0].starts_with("Found "),
            "{:?}",
            texts(&answer)
        );
    }
    this.cancel().await.unwrap();
    that.cancel().await.unwrap();
    assert!(common::process_gone(this_pid).await);
    assert!(common::process_gone(that_pid).await);
}

/// Only this user reaches the instance: its folder is private (mode 0700,
/// so another user cannot even reach the socket), and were the folder
/// opened up, the instance itself refuses a peer of another uid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_user_cannot_connect() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    let f = common::fixture("ts");
    let place = meeting_place();
    let (client, _) = start_shared(f.root(), place.path(), None, &[]).await;
    let (pid, log) = instance_of(&client).await;
    let folder = log.parent().unwrap().to_path_buf();
    let socket = log.with_extension("sock");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&folder), 0o700);
    assert_eq!(mode(&socket), 0o600);
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        println!("skipped: connecting as another user needs root; checked the modes only");
        return;
    }
    // Connects as `nobody`, says hello as a relay would, prints what came
    // back (nothing: the connection is closed) or the error.
    let connect_as_nobody = || {
        let script = format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect({socket:?})\n    s.sendall(b'{{\"status\":{{\"build\":\"x\"}}}}\\n')\n    print('answered:', s.recv(4096))\nexcept OSError as err:\n    print('refused:', err)\n",
            socket = socket.display().to_string()
        );
        let out = std::process::Command::new("python3")
            .args(["-c", &script])
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let denied = connect_as_nobody();
    assert!(denied.starts_with("refused: [Errno 13]"), "{denied}");
    // Opened up by mistake: the instance checks the peer's uid.
    for (path, mode) in [
        (place.path(), 0o711),
        (folder.as_path(), 0o711),
        (socket.as_path(), 0o666),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    // Reached, and closed unanswered (by the time of the hello's write or
    // read, an end, a reset or a broken pipe).
    let closed = connect_as_nobody();
    assert!(
        !closed.contains("Errno 13") && !closed.contains("answered: b'{"),
        "{closed}"
    );
    let log_text = std::fs::read_to_string(&log).unwrap();
    assert!(
        log_text.contains("refused a connection from uid 65534"),
        "{log_text}"
    );
    client.cancel().await.unwrap();
    assert!(common::process_gone(pid).await);
}

/// Where the meeting folder is not private (someone made it open), the
/// session is served alone rather than through a socket others could
/// reach, and `doctor` says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_meeting_folder_others_can_enter_means_serving_alone() {
    use std::os::unix::fs::PermissionsExt;

    let f = common::fixture("ts");
    let place = meeting_place();
    let folder = place.path().join("sextant");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (client, relay) = start_shared(f.root(), place.path(), None, &[]).await;
    let logs = texts(&call(&client, "logs", json!({})).await).join("\n");
    assert!(!logs.contains("Shared instance"), "{logs}");
    let answer = call(&client, "search", json!({"query": "Circle"})).await;
    assert!(
        texts(&answer)[0].starts_with("Found "),
        "{:?}",
        texts(&answer)
    );
    // The servers run under the session's own process.
    assert!(
        descendants(relay).iter().any(|(_, name)| name == "tsc"),
        "{:?}",
        descendants(relay)
    );
    assert!(instances_for(f.root()).is_empty());
    let report = doctor(f.root(), place.path());
    assert!(
        report.contains("Shared instance: unavailable: ") && report.contains("mode 755"),
        "{report}"
    );
    client.cancel().await.unwrap();
}

/// With an idle time, the instance outlives a gap between sessions (the
/// next session finds it, servers warm) and ends once the time has passed
/// with none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_instance_waits_its_idle_time_then_ends() {
    let f = common::fixture("ts");
    let place = meeting_place();
    let (first, _) = start_shared(f.root(), place.path(), None, &["--idle-exit", "3"]).await;
    let (pid, _) = instance_of(&first).await;
    first.cancel().await.unwrap();
    let (second, _) = start_shared(f.root(), place.path(), None, &["--idle-exit", "3"]).await;
    assert_eq!(
        instance_of(&second).await.0,
        pid,
        "the idle instance was reused"
    );
    let logs = texts(&call(&second, "logs", json!({})).await).join("\n");
    assert!(logs.contains("ends after 3 s with none"), "{logs}");
    second.cancel().await.unwrap();
    // The instance hears of the end when the relay has exited, a moment
    // after the client let go of it (longer on a loaded machine).
    let report = common::wait_for(
        "the instance to count the session ended",
        || std::future::ready(doctor(f.root(), place.path())),
        |report| report.contains(", 0 sessions, "),
    )
    .await;
    assert!(report.contains("no session for "), "{report}");
    // Gone within its idle time (3 s) and process_gone's 5 s.
    assert!(
        common::process_gone(pid).await,
        "the instance outlived its idle time"
    );
}

/// A connection that is not a relay of this build for this root is
/// refused with why, before any MCP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_of_another_build_or_root_is_refused() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    let f = common::fixture("ts");
    let place = meeting_place();
    let (client, _) = start_shared(f.root(), place.path(), None, &[]).await;
    let (_, log) = instance_of(&client).await;
    let socket = log.with_extension("sock");
    let say = |hello: Value| {
        let socket = socket.clone();
        async move {
            let stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
            let (read, mut write) = stream.into_split();
            write
                .write_all(format!("{hello}\n").as_bytes())
                .await
                .unwrap();
            let mut lines = tokio::io::BufReader::new(read).lines();
            lines.next_line().await.unwrap().unwrap_or_default()
        }
    };
    let other_build =
        say(json!({"session": {"build": "0.0.1-1-1", "root": f.root(), "read_only": false}})).await;
    assert!(
        other_build.starts_with(r#"{"refused":{"why":"this instance is sextant build "#),
        "{other_build}"
    );
    let garbage = say(json!({"hello": 1})).await;
    assert!(
        garbage.starts_with(r#"{"refused":{"why":"not a sextant relay: "#),
        "{garbage}"
    );
    client.cancel().await.unwrap();
}

/// A line that is not UTF-8 gets a parse error, and the session goes on:
/// alone, and through a relay (which passes bytes, not text, on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    let f = common::fixture("ts");
    let place = meeting_place();
    for mode in [&["--no-shared"][..], &["--idle-exit", "0"]] {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
            .arg("serve")
            .args(mode)
            .arg("--root")
            .arg(f.root())
            .env("XDG_RUNTIME_DIR", place.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bytes", "version": "1"}}});
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "src/index.ts", "limit": 1}}});
        let mut bytes = format!("{initialize}\n").into_bytes();
        bytes.extend(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        bytes.extend(b"\n\xff\xfe{\"id\": 7}\n");
        bytes.extend(format!("{call}\n").into_bytes());
        stdin.write_all(&bytes).await.unwrap();
        let mut answers = Vec::new();
        while answers.len() < 3 {
            let line = stdout.next_line().await.unwrap().expect("an answer");
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        assert!(
            answers.iter().any(|a| a["error"]["code"] == json!(-32700)),
            "{mode:?}: {answers:?}"
        );
        let read = answers.iter().find(|a| a["id"] == json!(2)).unwrap();
        assert!(
            read["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("     1\timport { Circle"),
            "{mode:?}: {read}"
        );
    }
}

/// Progress is per session: a call's progress reaches the session that
/// made it, through its relay, and no other session sharing the instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_only_the_session_that_asked() {
    use std::sync::{Arc, Mutex};

    use rmcp::model::ProgressNotificationParam;
    use rmcp::service::NotificationContext;
    use rmcp::transport::TokioChildProcess;
    use rmcp::{ClientHandler, RoleClient, ServiceExt};

    #[derive(Clone, Default)]
    struct Recorder {
        progress: Arc<Mutex<Vec<Option<String>>>>,
    }
    impl ClientHandler for Recorder {
        async fn on_progress(
            &self,
            params: ProgressNotificationParam,
            _context: NotificationContext<RoleClient>,
        ) {
            self.progress.lock().unwrap().push(params.message);
        }
    }

    let f = common::fixture("ts");
    let place = meeting_place();
    let connect = || async {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"));
        command
            .args(["serve", "--idle-exit", "0", "--root"])
            .arg(f.root())
            .env("XDG_RUNTIME_DIR", place.path());
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let recorder = Recorder::default();
        let client = recorder.clone().serve(transport).await.unwrap();
        (client, recorder)
    };
    let (asking, asked) = connect().await;
    let (other, heard) = connect().await;
    let handle = send_call(&asking, "diagnostics", json!({"file": "src/shapes.ts"})).await;
    let result = answer_of(handle).await;
    assert_eq!(texts(&result), ["No errors or warnings in src/shapes.ts"]);
    let read = send_call(
        &other,
        "read_file",
        json!({"path": "src/index.ts", "limit": 1}),
    )
    .await;
    let answer = answer_of(read).await;
    assert!(
        texts(&answer)[0].starts_with("     1\t"),
        "{:?}",
        texts(&answer)
    );
    let received = asked.progress.lock().unwrap().clone();
    assert!(
        received
            .iter()
            .any(|message| message.as_deref() == Some("starting typescript-go")),
        "{received:?}"
    );
    // Nothing arrives for a session that asked for no progress; a quiet
    // window long enough for one on its way.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(heard.progress.lock().unwrap().is_empty());
    asking.cancel().await.unwrap();
    other.cancel().await.unwrap();
}
