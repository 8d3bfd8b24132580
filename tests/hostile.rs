//! A thousand malformed or hostile MCP messages from a seeded generator,
//! written to the built binary's stdin: bad JSON, JSON that is no JSON-RPC
//! message, unknown methods and tools, every tool with every parameter of
//! the wrong type, huge strings and numbers, duplicate ids, requests before
//! `initialize`. Each request is answered, the server never exits, and a
//! normal call afterwards answers correctly. A sample of the same messages
//! over streamable HTTP, answered the same way. Then sixteen calls in
//! flight at once, and patches raced against another writer.

mod common;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A small deterministic generator (the same messages on every run).
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A value of a type other than `wanted` (a JSON Schema type name).
fn wrong_value(wanted: &str, random: &mut Seeded) -> Value {
    let choices: Vec<Value> = [
        json!("text"),
        json!(12345),
        json!(-1),
        json!(1.5e300),
        json!(true),
        json!([1, "two"]),
        json!({"nested": {"deep": []}}),
        Value::Null,
    ]
    .into_iter()
    .filter(|v| {
        let actual = match v {
            Value::String(_) => "string",
            Value::Number(n) if n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
            Value::Null => "null",
        };
        actual != wanted && !(wanted == "number" && actual == "integer")
    })
    .collect();
    choices[random.below(choices.len())].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_hostile_messages_are_each_answered_and_the_server_stays_up() {
    let f = common::fixture("ts");
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"));
    serve.args(["serve", "--no-shared", "--root"]).arg(f.root());
    hostile_session(serve).await;
}

/// The same through a relay and its shared instance: the relay passes
/// every line on, the instance's guard answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_hostile_messages_through_a_relay_are_each_answered() {
    let f = common::fixture("ts");
    let place = tempfile::tempdir().unwrap();
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"));
    serve
        .args(["serve", "--idle-exit", "0", "--root"])
        .arg(f.root())
        .env("XDG_RUNTIME_DIR", place.path());
    hostile_session(serve).await;
}

/// Writes the hostile messages to `serve`'s stdin and checks every answer.
async fn hostile_session(mut serve: tokio::process::Command) {
    let mut child = serve
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |line: String| {
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
    };
    let mut expected_ids: HashSet<String> = HashSet::new();
    let mut expected_nulls = 0usize;
    let mut answered: HashMap<String, usize> = HashMap::new();

    // Before initialize.
    send(json!({"jsonrpc": "2.0", "id": "early-1", "method": "tools/list"}).to_string()).await;
    expected_ids.insert("\"early-1\"".into());
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}}).to_string()).await;
    expected_ids.insert("1".into());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await;
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string()).await;
    // The tools and their parameters, from the server itself.
    let tools = loop {
        let line = stdout.next_line().await.unwrap().expect("tools/list");
        let message: Value = serde_json::from_str(&line).unwrap();
        *answered.entry(message["id"].to_string()).or_default() += 1;
        if message["id"] == json!(2) {
            break message["result"]["tools"].as_array().unwrap().clone();
        }
    };
    let parameters = tool_parameters(&tools);
    let mut messages = hostile_messages(&parameters, 1000);
    for (id, line) in &messages {
        match id {
            Some(id) => {
                expected_ids.insert(id.to_string());
            }
            None if line.starts_with("{\"jsonrpc\":\"2.0\",\"method\":\"notifications") => {}
            None => expected_nulls += 1,
        }
    }
    // Then a normal call. Written while the answers are read: a server
    // that stops reading would otherwise block the writing, not fail.
    messages.push((None, json!({"jsonrpc": "2.0", "id": "last", "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "src/index.ts", "limit": 1}}}).to_string()));
    let writing = tokio::spawn(async move {
        for (_, line) in messages {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
        }
        Ok::<_, std::io::Error>(stdin)
    });

    expected_ids.insert("\"last\"".into());
    let mut nulls = 0;
    let mut last = Value::Null;
    // Calls run at once, so answers come in any order: read until every
    // one has come.
    tokio::time::timeout(Duration::from_secs(120), async {
        while nulls < expected_nulls || expected_ids.iter().any(|id| !answered.contains_key(id)) {
            let line = stdout
                .next_line()
                .await
                .unwrap()
                .expect("the server stays up and answers");
            let message: Value = serde_json::from_str(&line).expect("every answer is JSON");
            match &message["id"] {
                Value::Null => nulls += 1,
                id => *answered.entry(id.to_string()).or_default() += 1,
            }
            if message["id"] == json!("last") {
                last = message;
            }
        }
    })
    .await
    .unwrap_or_else(|_| {
        let missing: Vec<&String> = expected_ids
            .iter()
            .filter(|id| !answered.contains_key(*id))
            .collect();
        panic!(
            "unanswered after 2 minutes: {missing:?}; {nulls} of {expected_nulls} id-less answers"
        )
    });
    assert_eq!(last["result"]["isError"], json!(false), "{last}");
    let text = last["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("     1\timport { Circle"), "{text}");
    let missing: Vec<&String> = expected_ids
        .iter()
        .filter(|id| !answered.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} requests unanswered: {missing:?}",
        missing.len()
    );
    assert_eq!(
        nulls, expected_nulls,
        "answers to lines without a usable id"
    );
    assert!(child.try_wait().unwrap().is_none(), "the server exited");
    writing.await.unwrap().expect("every message written");
}

/// Sixteen calls in flight at once over stdio, mixed tools over a
/// TypeScript project and a Rust crate in one workspace: each answered
/// correctly, and a quick call made while rust-analyzer is still starting
/// for a slow one is answered first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_calls_at_once_are_answered_and_a_quick_one_is_not_held_up() {
    use common::mcp::{call, start, texts};

    let dir = common::two_language_workspace();
    let client = std::sync::Arc::new(start(dir.path(), &[]).await);

    // A slow call: rust-analyzer starts cold, then cargo checks the crate.
    let slow = {
        let client = std::sync::Arc::clone(&client);
        tokio::spawn(async move {
            call(
                &client,
                "diagnostics",
                json!({"file": "ledger/src/broken.rs"}),
            )
            .await
        })
    };
    let quick = call(
        &client,
        "read_file",
        json!({"path": "ledger/src/lib.rs", "limit": 1}),
    )
    .await;
    assert!(
        texts(&quick)[0].starts_with("     1\t//! A small ledger crate"),
        "{:?}",
        texts(&quick)
    );
    assert!(
        !slow.is_finished(),
        "the quick call waited for the slow one"
    );

    let calls: Vec<(&str, Value, &str)> = vec![
        (
            "search",
            json!({"query": "Registry"}),
            "@46:14 Class - Registry",
        ),
        ("search", json!({"query": "balance"}), "Account::balance"),
        (
            "read",
            json!({"file": "web/src/shapes.ts", "symbol": "Circle"}),
            "@18:14 Class - Circle",
        ),
        (
            "read",
            json!({"file": "ledger/src/lib.rs", "symbol": "Account"}),
            "@11:11 Interface - Account",
        ),
        (
            "references",
            json!({"file": "web/src/shapes.ts", "symbol": "Circle"}),
            "Found 10 references to Circle across 3 files",
        ),
        (
            "references",
            json!({"file": "ledger/src/lib.rs", "symbol": "Ledger"}),
            "Found 14 references to Ledger across 2 files",
        ),
        (
            "diagnostics",
            json!({"file": "web/src/broken.ts"}),
            "[Error][2322]",
        ),
        (
            "diagnostics",
            json!({"file": "web/src/shapes.ts"}),
            "No errors or warnings in web/src/shapes.ts",
        ),
        (
            "grep",
            json!({"pattern": "Circle", "path": "web"}),
            "web/src/index.ts",
        ),
        (
            "grep",
            json!({"pattern": "fn balance", "output_mode": "count"}),
            "ledger/src/lib.rs:3",
        ),
        (
            "find",
            json!({"pattern": "**/*.rs"}),
            "ledger/src/report.rs",
        ),
        (
            "read_file",
            json!({"path": "web/src/paths.ts", "limit": 2}),
            "export const tsFile = /\\.ts$/;",
        ),
        (
            "inspect",
            json!({"file": "web/src/shapes.ts", "symbol": "Base.area"}),
            "Implementations (2):",
        ),
        (
            "inspect",
            json!({"file": "ledger/src/lib.rs", "symbol": "Account::balance"}),
            "Implementations (2):",
        ),
        (
            "call_hierarchy",
            json!({"file": "web/src/shapes.ts", "symbol": "Circle.area"}),
            "@58:3 Method - Registry.totalArea",
        ),
        (
            "completion",
            json!({"file": "web/src/index.ts", "line": 6, "character": 12}),
            "Methods (3)",
        ),
    ];
    assert_eq!(calls.len(), 16);
    let answers = futures::future::join_all(
        calls
            .iter()
            .map(|(tool, args, _)| call(&client, tool, args.clone())),
    )
    .await;
    for ((tool, args, expected), answer) in calls.iter().zip(&answers) {
        let text = texts(answer).join("\n");
        assert_eq!(answer.is_error, Some(false), "{tool} {args}: {text}");
        assert!(
            text.contains(expected),
            "{tool} {args}: expected {expected:?} in:\n{text}"
        );
    }
    let slow = slow.await.unwrap();
    assert!(
        texts(&slow).join("\n").contains("E0382"),
        "{:?}",
        texts(&slow)
    );
}

/// A patch applied while another program keeps rewriting the same files
/// (each of its writes whole, by rename), many rounds: a reader never sees
/// a partial or mixed file, every apply is whole or refused as stale, and
/// no staged file is left behind. Every fourth round the other writer is
/// held still (between two of its writes) and the patch must apply: a
/// machine too loaded for any pause to line up with a patch still tests
/// that an unraced patch lands.
#[test]
fn patches_raced_against_another_writer_apply_whole_or_not_at_all() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use sextant::fs::patch::{FileEdit, Patch, apply};

    let dir = tempfile::tempdir().unwrap();
    let names = ["a.ts", "b.ts", "c.ts"];
    // Every version a file may hold: sextant's before and after, and the
    // other writer's, each a long text so a torn write would show.
    let version = |name: &str, who: &str, n: usize| {
        format!("// {name} by {who} #{n}\n{}", "x".repeat(64 * 1024))
    };
    let rounds = 200;
    for name in names {
        std::fs::write(dir.path().join(name), version(name, "start", 0)).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    // The other writer is held still while `hold` is set; it answers by
    // setting `held` between two of its writes, and clears it on leaving.
    let hold = Arc::new(AtomicBool::new(false));
    let held = Arc::new(AtomicBool::new(false));
    let root = dir.path().to_path_buf();
    let writer = {
        let (stop, root) = (Arc::clone(&stop), root.clone());
        let (hold, held) = (Arc::clone(&hold), Arc::clone(&held));
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                if hold.load(Ordering::SeqCst) {
                    held.store(true, Ordering::SeqCst);
                    while hold.load(Ordering::SeqCst) && !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    held.store(false, Ordering::SeqCst);
                    continue;
                }
                n += 1;
                let name = names[n % names.len()];
                let temp = root.join(format!(".other-{name}"));
                std::fs::write(&temp, version(name, "other", n)).unwrap();
                std::fs::rename(&temp, root.join(name)).unwrap();
                // Now and then a pause, so that some raced patches find
                // their files unchanged and are staged while it writes.
                if n % 3 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        })
    };
    let reader = {
        let (stop, root) = (Arc::clone(&stop), root.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(Ordering::SeqCst) {
                for name in names {
                    let text = std::fs::read_to_string(root.join(name)).unwrap();
                    let (head, body) = text.split_once('\n').unwrap();
                    assert!(head.starts_with(&format!("// {name} by ")), "{head}");
                    assert_eq!(body, "x".repeat(64 * 1024), "a torn {name}: {head}");
                    reads += 1;
                }
            }
            reads
        })
    };
    let (mut applied, mut stale) = (0, 0);
    for round in 0..rounds {
        let unraced = round % 4 == 0;
        if unraced {
            hold.store(true, Ordering::SeqCst);
            while !held.load(Ordering::SeqCst) {
                assert!(!writer.is_finished(), "the other writer stopped");
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
        // A patch of all three files, from what they hold now.
        let files = names
            .iter()
            .map(|name| {
                let path = root.join(name);
                FileEdit {
                    before: Some(std::fs::read_to_string(&path).unwrap().into()),
                    after: Some(version(name, "sextant", round).into()),
                    path,
                    shown: name.to_string(),
                }
            })
            .collect();
        match apply(&Patch { files }) {
            Ok(()) => applied += 1,
            Err(err) => {
                assert!(!unraced, "round {round}, unraced, was refused: {err}");
                assert!(err.to_string().starts_with("error[stale-patch]"), "{err}");
                stale += 1;
            }
        }
        if unraced {
            hold.store(false, Ordering::SeqCst);
            while held.load(Ordering::SeqCst) {
                assert!(!writer.is_finished(), "the other writer stopped");
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
    }
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let reads = reader.join().expect("no torn file was read");
    assert_eq!(applied + stale, rounds);
    assert!(reads > 0);
    let left = common::staged_files_left(&root);
    assert!(left.is_empty(), "staged files left behind: {left:?}");
    println!("{applied} applied, {stale} refused as stale, {reads} reads");
}

/// Every (tool, parameter, JSON Schema type) of a tools/list answer.
fn tool_parameters(tools: &[Value]) -> Vec<(String, String, String)> {
    tools
        .iter()
        .flat_map(|tool| {
            let name = tool["name"].as_str().unwrap().to_string();
            tool["inputSchema"]["properties"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(key, schema)| {
                    let wanted = schema["type"].as_str().unwrap_or("string").to_string();
                    (name.clone(), key.clone(), wanted)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `count` hostile messages, the same on every run, each with the id an
/// answer must carry (`None` for a line without a usable id): every tool
/// with every parameter of the wrong type once, then a seeded mix of
/// truncated JSON, non-JSON-RPC values, unknown methods and tools, wrong
/// types, huge strings and numbers, duplicate ids and unknown
/// notifications.
fn hostile_messages(
    parameters: &[(String, String, String)],
    count: usize,
) -> Vec<(Option<u64>, String)> {
    let mut random = Seeded(0x5e7a47);
    let mut next_id = 100u64;
    let mut messages = Vec::new();
    // Every tool with every parameter of the wrong type, once.
    for (tool, key, wanted) in parameters {
        let mut args = serde_json::Map::new();
        args.insert(key.clone(), wrong_value(wanted, &mut random));
        next_id += 1;
        messages.push((Some(next_id), json!({"jsonrpc": "2.0", "id": next_id, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string()));
    }
    let huge = "x".repeat(200_000);
    while messages.len() < count {
        next_id += 1;
        let id = next_id;
        let (tool, key, wanted) = &parameters[random.below(parameters.len())];
        let message = match random.below(9) {
            0 => (None, format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/ca")),
            1 => (None, ["42", "[]", "\"just a string\"", "{\"hello\":1}", "null"][random.below(5)].to_string()),
            2 => (Some(id), json!({"jsonrpc": "2.0", "id": id, "method": format!("no/such/{id}")}).to_string()),
            3 => (Some(id), json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": format!("tool{id}"), "arguments": {}}}).to_string()),
            4 => {
                let mut args = serde_json::Map::new();
                args.insert(key.clone(), wrong_value(wanted, &mut random));
                (Some(id), json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string())
            }
            5 => (Some(id), json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": huge}}}).to_string()),
            6 => {
                let number = ["1e308", "-5", "18446744073709551616", "0.5"][random.below(4)];
                (Some(id), format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"read_file\",\"arguments\":{{\"path\":\"src/index.ts\",\"offset\":{number}}}}}}}"))
            }
            7 => {
                // The same id twice.
                messages.push((Some(id), json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()));
                (Some(id), json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string())
            }
            _ => (None, json!({"jsonrpc": "2.0", "method": format!("notifications/unknown{id}"), "params": {"x": huge.len()}}).to_string()),
        };
        messages.push(message);
    }
    messages.truncate(count.max(parameters.len()));
    messages
}

/// One message posted to `http://HOST/mcp` (`Connection: close`): the
/// status code and the JSON-RPC messages of the answer (a JSON body, or
/// the `data:` lines of an event stream).
async fn post(host: &str, session: Option<&str>, body: &str) -> (u16, Vec<Value>) {
    use tokio::io::AsyncReadExt;
    let session = session
        .map(|id| format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answer))
        .await
        .unwrap_or_else(|_| panic!("no answer within 60 s to {}", &body[..body.len().min(200)]))
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer}"));
    let messages = answer
        .lines()
        .filter_map(|line| {
            serde_json::from_str::<Value>(line.strip_prefix("data: ").unwrap_or(line)).ok()
        })
        .filter(|message| message.get("jsonrpc").is_some())
        .collect();
    (status, messages)
}

/// A sample of the same hostile messages (every fifth), each posted over
/// streamable HTTP within a session: each gets an HTTP answer, every
/// request with an id its JSON-RPC answer, every message without a usable
/// id a `400` with a JSON-RPC error; the server stays up and a normal call
/// afterwards answers correctly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_messages_over_http_are_each_answered_and_the_server_stays_up() {
    let f = common::fixture("ts");
    let (mut child, url, mut stderr) = common::mcp::start_http(f.root()).await;
    let host = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });

    // Before a session: a malformed message is refused, not crashed on.
    let (status, answer) = post(&host, None, "{\"jsonrpc\":").await;
    assert_eq!(
        (status, answer[0]["error"]["code"].as_i64()),
        (400, Some(-32700))
    );

    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}}).to_string();
    let session = {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{initialize}",
            initialize.len()
        );
        let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = BufReader::new(stream).lines();
        let mut session = None;
        while let Some(line) = head.next_line().await.unwrap() {
            if let Some(id) = line.to_ascii_lowercase().strip_prefix("mcp-session-id: ") {
                session = Some(id.trim().to_string());
            }
            if line.is_empty() {
                break;
            }
        }
        session.expect("initialize answers with a session id")
    };
    let (status, _) = post(
        &host,
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    )
    .await;
    assert_eq!(status, 202);
    let (_, listed) = post(
        &host,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
    )
    .await;
    let tools = listed[0]["result"]["tools"].as_array().unwrap().clone();
    let parameters = tool_parameters(&tools);

    let sample: Vec<(Option<u64>, String)> = hostile_messages(&parameters, 1000)
        .into_iter()
        .step_by(5)
        .collect();
    assert!(sample.len() >= 200, "{}", sample.len());
    for (id, body) in &sample {
        let (status, answers) = post(&host, Some(&session), body).await;
        match id {
            Some(id) => assert!(
                answers.iter().any(|answer| answer["id"] == json!(id)
                    && (answer.get("result").is_some() || answer.get("error").is_some())),
                "no answer for id {id} (HTTP {status}): {answers:?}\n{}",
                &body[..body.len().min(300)]
            ),
            None if body.contains("\"notifications/") => assert_eq!(status, 202, "{body}"),
            None => {
                assert_eq!(status, 400, "{body}");
                let code = answers[0]["error"]["code"].as_i64();
                assert!(matches!(code, Some(-32700 | -32600)), "{answers:?}");
            }
        }
    }

    let call = json!({"jsonrpc": "2.0", "id": "last", "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "src/index.ts", "limit": 1}}}).to_string();
    let (status, answers) = post(&host, Some(&session), &call).await;
    assert_eq!(status, 200);
    let last = answers
        .iter()
        .find(|a| a["id"] == json!("last"))
        .expect("the normal call is answered");
    assert_eq!(last["result"]["isError"], json!(false), "{last}");
    let text = last["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("     1\timport { Circle"), "{text}");
    assert!(child.try_wait().unwrap().is_none(), "sextant exited");
}
