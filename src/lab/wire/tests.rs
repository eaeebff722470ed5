use super::*;
use serde_json::json;

fn file() -> String {
    "file".to_owned()
}

fn acquire() -> Request {
    Request::Acquire {
        name: file(),
        client_id: "client-1".into(),
    }
}

fn renew() -> Request {
    Request::Renew {
        name: file(),
        client_id: "client-1".into(),
        token: 1,
    }
}

fn release() -> Request {
    Request::Release {
        name: file(),
        client_id: "client-1".into(),
        token: 1,
    }
}

fn write() -> Request {
    Request::Write {
        key: "k".into(),
        value: "v".into(),
        token: 1,
    }
}

fn lease(token: u64, expires_at: Option<f64>) -> Reply {
    Reply::Lease(Some(LeaseReply::new(token, expires_at)))
}

#[test]
fn requests_are_lines_with_their_id_and_calls_as_a_student_writes_them() {
    let (file, client) = (file(), "client-1".to_owned());
    let cases = [
        (Request::Hello, "hello", r#"{"op":"hello","id":0}"#, "hello"),
        (
            Request::New {
                lease_seconds: Some(10.0),
                first_token: Some(1),
            },
            "new",
            r#"{"op":"new","lease_seconds":10.0,"first_token":1,"id":1}"#,
            "new LockService(clock, 10.0, 1)",
        ),
        (
            Request::New {
                lease_seconds: None,
                first_token: None,
            },
            "new",
            r#"{"op":"new","id":2}"#,
            "new LockService(clock)",
        ),
        (
            Request::Clock { now: 2.5 },
            "clock",
            r#"{"op":"clock","now":2.5,"id":3}"#,
            "clock = 2.5",
        ),
        (
            Request::Acquire {
                name: file.clone(),
                client_id: client.clone(),
            },
            "acquire",
            r#"{"op":"acquire","name":"file","client_id":"client-1","id":4}"#,
            "acquire(file, client-1)",
        ),
        (
            Request::Renew {
                name: file.clone(),
                client_id: client.clone(),
                token: 3,
            },
            "renew",
            r#"{"op":"renew","name":"file","client_id":"client-1","token":3,"id":5}"#,
            "renew(file, client-1, 3)",
        ),
        (
            Request::Release {
                name: file.clone(),
                client_id: client.clone(),
                token: 3,
            },
            "release",
            r#"{"op":"release","name":"file","client_id":"client-1","token":3,"id":6}"#,
            "release(file, client-1, 3)",
        ),
        (
            Request::Holder { name: file.clone() },
            "holder",
            r#"{"op":"holder","name":"file","id":7}"#,
            "holder(file)",
        ),
        (
            Request::Write {
                key: file.clone(),
                value: "a \"b\"".into(),
                token: 2,
            },
            "write",
            r#"{"op":"write","key":"file","value":"a \"b\"","token":2,"id":8}"#,
            "write(file, \"a \"b\"\", 2)",
        ),
        (
            Request::Read { key: file.clone() },
            "read",
            r#"{"op":"read","key":"file","id":9}"#,
            "read(file)",
        ),
        (
            Request::HighestToken { key: file },
            "highest_token",
            r#"{"op":"highest_token","key":"file","id":10}"#,
            "highest_token(file)",
        ),
    ];
    for (id, (request, op, line, call)) in cases.into_iter().enumerate() {
        assert_eq!(request.op(), op);
        assert_eq!(request.to_line(id as u64), line);
        assert_eq!(request.call(), call);
    }
}

#[test]
fn replies_are_described_as_a_transcript_says_them() {
    let cases = [
        (
            Reply::Hello {
                language: "python 3.11".into(),
            },
            "hello from python 3.11",
            false,
        ),
        (Reply::Done, "ok", false),
        (Reply::Succeeded { none: None }, "ok", false),
        (
            Reply::Succeeded {
                none: Some("None".into()),
            },
            "ok (returned None)",
            false,
        ),
        (Reply::Lease(None), "none", true),
        (lease(2, Some(20.0)), "lease token 2 (expires 20.0)", false),
        (
            lease(3, Some(20.0000001)),
            "lease token 3 (expires 20.0000001)",
            false,
        ),
        (lease(4, None), "lease token 4", false),
        (
            Reply::Holder(Some("client-1".into())),
            "\"client-1\"",
            false,
        ),
        (Reply::Holder(None), "none", false),
        (Reply::Value(Some("v".into())), "\"v\"", false),
        (Reply::Value(None), "none", false),
        (Reply::Token(Some(7)), "7", false),
        (Reply::Token(None), "none", false),
        (
            Reply::Refused("not\n  yours".into()),
            "refused (\"not yours\")",
            true,
        ),
        (
            Reply::Strange("42, not a string or none".into()),
            "42, not a string or none",
            false,
        ),
        (
            Reply::NotImplemented("LockService.acquire".into()),
            "not implemented yet (LockService.acquire)",
            true,
        ),
    ];
    for (reply, described, refusal) in cases {
        assert_eq!(reply.describe(), described);
        assert_eq!(reply.is_refusal(), refusal, "{reply:?}");
    }
}

/// A student's text reaches the transcript escaped, on one line, and cut at 200 characters.
#[test]
fn a_students_text_is_escaped_and_bounded() {
    let hostile = Reply::Refused("\u{1b}]0;PWN\u{7}stale".into());
    assert_eq!(hostile.describe(), "refused (\"\\u{1b}]0;PWN\\u{7}stale\")");
    let hello = Reply::Hello {
        language: "py\u{1b}[2J".into(),
    };
    assert_eq!(hello.describe(), "hello from py\\u{1b}[2J");
    let long = Reply::Value(Some("x".repeat(300)));
    assert_eq!(long.describe(), format!("\"{}…\"", "x".repeat(200)));
    // 200 characters is the bound itself: shown whole, with no mark of a cut.
    let at_the_bound = Reply::Value(Some("x".repeat(200)));
    assert_eq!(at_the_bound.describe(), format!("\"{}\"", "x".repeat(200)));
}

#[test]
fn the_envelope_is_json_an_object_and_the_requests_id() {
    let holder = Request::Holder { name: file() };
    let err = |what: &str| Err::<Reply, String>(what.to_owned());
    assert_eq!(
        parse_reply("debug: here", 0, &holder),
        err("is not JSON (print debugging output on stderr, never on stdout)")
    );
    assert_eq!(parse_reply("[0]", 0, &holder), err("is not a JSON object"));
    assert_eq!(parse_reply("42", 0, &holder), err("is not a JSON object"));
    assert_eq!(
        parse_reply(r#"{"id":0,"id":0,"returned":null}"#, 0, &holder),
        err("is not a reply (duplicate field `id`)")
    );
    assert_eq!(
        parse_reply(r#"{"returned":null}"#, 0, &holder),
        err("has no numeric `id`")
    );
    assert_eq!(
        parse_reply(r#"{"id":"5","returned":null}"#, 5, &holder),
        err("has no numeric `id`")
    );
    assert_eq!(
        parse_reply(r#"{"id":6,"returned":null}"#, 5, &holder),
        err("carries id 6 instead of 5")
    );
    assert_eq!(
        parse_reply(r#"{"id":5,"nothing":1}"#, 5, &holder),
        err("is not a reply to holder (expected `returned` or `threw`)")
    );
}

/// `threw` (and version 1's `refused`) and `not_implemented` answer any request.
#[test]
fn a_thrown_error_or_an_unwritten_method_answers_any_request() {
    for request in [
        acquire(),
        renew(),
        release(),
        write(),
        Request::Clock { now: 1.0 },
    ] {
        assert_eq!(
            parse_reply(r#"{"id":0,"threw":"TypeError: x"}"#, 0, &request),
            Ok(Reply::Refused("TypeError: x".into()))
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"refused":{"why":1}}"#, 0, &request),
            Ok(Reply::Refused(r#"{"why":1}"#.into()))
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"not_implemented":"LockService.x"}"#, 0, &request),
            Ok(Reply::NotImplemented("LockService.x".into()))
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"not_implemented":2}"#, 0, &request),
            Ok(Reply::NotImplemented("2".into()))
        );
    }
}

#[test]
fn hello_new_and_clock_have_replies_of_their_own() {
    assert_eq!(
        parse_reply(
            r#"{"id":0,"hello":"x","language":"rust"}"#,
            0,
            &Request::Hello
        ),
        Ok(Reply::Hello {
            language: "rust".into()
        })
    );
    assert_eq!(
        parse_reply(r#"{"id":0,"hello":"x"}"#, 0, &Request::Hello),
        Ok(Reply::Hello {
            language: "an unnamed language".into()
        })
    );
    assert_eq!(
        parse_reply(r#"{"id":0,"done":true}"#, 0, &Request::Hello),
        Err("is not a reply to hello (expected `hello`)".into())
    );
    for request in [
        Request::New {
            lease_seconds: None,
            first_token: None,
        },
        Request::Clock { now: 1.0 },
    ] {
        assert_eq!(
            parse_reply(r#"{"id":1,"done":true}"#, 1, &request),
            Ok(Reply::Done)
        );
        for line in [
            r#"{"id":1,"done":false}"#,
            r#"{"id":1,"done":1}"#,
            r#"{"id":1,"returned":null}"#,
        ] {
            assert_eq!(
                parse_reply(line, 1, &request),
                Err(format!(
                    "is not a reply to {} (expected `done: true` or `threw`)",
                    request.op()
                ))
            );
        }
    }
}

/// From acquire and renew: a lease object is the grant, a none or `false` is no lease, and
/// anything else is shown for what it is.
#[test]
fn acquire_and_renew_return_a_lease_or_none() {
    for request in [acquire(), renew()] {
        let parse = |line: &str| parse_reply(line, 2, &request);
        for none in [
            r#"{"id":2,"returned":null}"#,
            r#"{"id":2,"returned":null,"shown":"None"}"#,
            r#"{"id":2,"returned":false}"#,
            r#"{"id":2,"lease":null}"#,
        ] {
            assert_eq!(parse(none), Ok(Reply::Lease(None)), "{none}");
        }
        assert!(matches!(
            parse(r#"{"id":2,"returned":{"token":3,"expires_at":10.5,"name":"file"}}"#),
            Ok(Reply::Lease(Some(l))) if l.token == 3 && l.expires_at == Some(10.5)
        ));
        assert_eq!(
            parse(r#"{"id":2,"returned":{"token":3.0,"expiresAt":10}}"#),
            Ok(lease(3, Some(10.0)))
        );
        // What else the lease says, where it says it, as it came.
        let Ok(Reply::Lease(Some(l))) = parse(
            r#"{"id":2,"returned":{"token":1,"clientId":"client-1","name":null,"grantedAt":2}}"#,
        ) else {
            panic!("a lease");
        };
        assert_eq!(l.says.client_id, Some(json!("client-1")));
        assert_eq!(l.says.name, Some(Value::Null));
        assert_eq!(l.says.granted_at, Some(json!(2)));
        assert_eq!(parse(r#"{"id":2,"lease":{"token":3}}"#), Ok(lease(3, None)));
        assert_eq!(
            parse(r#"{"id":2,"returned":{"token":3,"expires_at":null}}"#),
            Ok(lease(3, None))
        );
        // An expiry that is no number of seconds: a lease that says no expiry, and says so.
        for (expiry, shown) in [
            (r#""soon""#, r#""soon""#),
            (
                r#""1970-01-01T00:00:10.000Z""#,
                r#""1970-01-01T00:00:10.000Z""#,
            ),
            (r#"{"seconds":10}"#, r#"{"seconds":10}"#),
            ("true", "true"),
        ] {
            let line = format!(r#"{{"id":2,"returned":{{"token":3,"expires_at":{expiry}}}}}"#);
            let Ok(Reply::Lease(Some(l))) = parse(&line) else {
                panic!("{line}: a lease");
            };
            assert_eq!((l.token, l.expires_at), (3, None), "{line}");
            assert_eq!(l.says.expiry_not_seconds.as_deref(), Some(shown), "{line}");
            assert_eq!(
                Reply::Lease(Some(l)).describe(),
                format!("lease token 3 (expires {shown}, not a number of seconds)")
            );
        }
        for token in ["-1", "1.5", "\"3\"", "null", "9007199254740992"] {
            assert_eq!(
                parse(&format!(r#"{{"id":2,"returned":{{"token":{token}}}}}"#)),
                Ok(Reply::Strange(format!(
                    "{{\"token\":{token}}} (its token is not a whole number from 0 to 2^53 - 1)"
                ))),
                "token {token}"
            );
        }
        assert_eq!(
            parse(r#"{"id":2,"returned":{"tokn":3}}"#),
            Ok(Reply::Strange(
                "{\"tokn\":3} (a lease needs a token field)".into()
            ))
        );
        // Go's encoding/json and C#'s System.Text.Json write PascalCase: the same fields.
        let Ok(Reply::Lease(Some(l))) = parse(
            r#"{"id":2,"returned":{"Name":"file","ClientId":"client-1","Token":3,"GrantedAt":1,"ExpiresAt":11}}"#,
        ) else {
            panic!("a PascalCase lease");
        };
        assert_eq!((l.token, l.expires_at), (3, Some(11.0)));
        assert_eq!(l.says.client_id, Some(json!("client-1")));
        assert_eq!(l.says.granted_at, Some(json!(1)));
        // A byte-order mark before a reply (C# on Windows) is not part of it.
        assert_eq!(
            parse("\u{feff}{\"id\":2,\"returned\":{\"token\":3}}"),
            Ok(lease(3, None))
        );
        assert_eq!(
            parse(r#"{"id":2,"returned":true,"shown":"True"}"#),
            Ok(Reply::Strange("True, not a lease or none".into()))
        );
        assert_eq!(
            parse(r#"{"id":2,"returned":"ok"}"#),
            Ok(Reply::Strange("\"ok\", not a lease or none".into()))
        );
    }
}

/// From release and write: `false` refuses, and anything else, a none included, succeeds.
#[test]
fn release_and_write_succeed_unless_they_throw_or_return_false() {
    for request in [release(), write()] {
        let parse = |line: &str| parse_reply(line, 3, &request);
        assert_eq!(
            parse(r#"{"id":3,"returned":null,"shown":"None"}"#),
            Ok(Reply::Succeeded {
                none: Some("None".into())
            })
        );
        assert_eq!(
            parse(r#"{"id":3,"returned":null}"#),
            Ok(Reply::Succeeded {
                none: Some("null".into())
            })
        );
        for ok in [
            r#"{"id":3,"returned":true}"#,
            r#"{"id":3,"returned":1}"#,
            r#"{"id":3,"returned":{"a":1}}"#,
            r#"{"id":3,"done":true}"#,
        ] {
            assert_eq!(parse(ok), Ok(Reply::Succeeded { none: None }), "{ok}");
        }
        assert_eq!(
            parse(r#"{"id":3,"returned":false,"shown":"False"}"#),
            Ok(Reply::Refused("returned False".into()))
        );
        assert_eq!(
            parse(r#"{"id":3,"returned":false}"#),
            Ok(Reply::Refused("returned false".into()))
        );
        assert_eq!(
            parse(r#"{"id":3,"done":false}"#),
            Err(format!(
                "is not a reply to {} (expected `returned` or `threw`)",
                request.op()
            ))
        );
    }
}

#[test]
fn observers_return_their_type_or_none() {
    let holder = Request::Holder { name: file() };
    let read = Request::Read { key: "k".into() };
    let highest = Request::HighestToken { key: "k".into() };
    let parse = |line: &str, request: &Request| parse_reply(line, 4, request);
    assert_eq!(
        parse(r#"{"id":4,"returned":"client-2"}"#, &holder),
        Ok(Reply::Holder(Some("client-2".into())))
    );
    assert_eq!(
        parse(r#"{"id":4,"holder":null}"#, &holder),
        Ok(Reply::Holder(None))
    );
    assert_eq!(
        parse(r#"{"id":4,"returned":42}"#, &holder),
        Ok(Reply::Strange("42, not a string or none".into()))
    );
    assert_eq!(
        parse(r#"{"id":4,"value":"v"}"#, &read),
        Ok(Reply::Value(Some("v".into())))
    );
    assert_eq!(
        parse(r#"{"id":4,"returned":["v"],"shown":"['v']"}"#, &read),
        Ok(Reply::Strange("['v'], not a string or none".into()))
    );
    assert_eq!(
        parse(r#"{"id":4,"returned":9}"#, &highest),
        Ok(Reply::Token(Some(9)))
    );
    assert_eq!(
        parse(r#"{"id":4,"token":9.0}"#, &highest),
        Ok(Reply::Token(Some(9)))
    );
    assert_eq!(
        parse(r#"{"id":4,"returned":null}"#, &highest),
        Ok(Reply::Token(None))
    );
    assert_eq!(
        parse(r#"{"id":4,"returned":"9"}"#, &highest),
        Ok(Reply::Strange("\"9\", not a whole number or none".into()))
    );
    assert_eq!(
        parse(r#"{"id":4,"value":"9"}"#, &highest),
        Err("is not a reply to highest_token (expected `returned` or `threw`)".into())
    );
}

#[test]
fn tokens_are_whole_non_negative_numbers_up_to_2_to_the_53_minus_1() {
    assert_eq!(as_token(&json!(3)), Some(3));
    assert_eq!(as_token(&json!(MAX_TOKEN)), Some(MAX_TOKEN));
    assert_eq!(as_token(&json!(MAX_TOKEN + 1)), None);
    assert_eq!(as_token(&json!(u64::MAX)), None);
    assert_eq!(as_token(&json!(2.0)), Some(2));
    assert_eq!(as_token(&json!(0.0)), Some(0));
    assert_eq!(as_token(&json!(9_007_199_254_740_991.0)), Some(MAX_TOKEN));
    assert_eq!(as_token(&json!(9_007_199_254_740_992.0)), None);
    assert_eq!(as_token(&json!(1e300)), None);
    assert_eq!(as_token(&json!(1.5)), None);
    assert_eq!(as_token(&json!(-1.0)), None);
    assert_eq!(as_token(&json!(-1)), None);
    assert_eq!(as_token(&json!("2")), None);
    assert_eq!(as_token(&Value::Null), None);
}

#[test]
fn times_are_shown_to_the_millisecond_or_in_full() {
    assert_eq!(fmt_time(10.0), "10.0");
    assert_eq!(fmt_time(0.0), "0.0");
    assert_eq!(fmt_time(0.3), "0.3");
    assert_eq!(fmt_time(2.5), "2.5");
    assert_eq!(fmt_time(16.402), "16.402");
    assert_eq!(fmt_time(10.000000001), "10.000000001");
    assert_eq!(fmt_time(1.2345), "1.2345");
}

#[test]
fn a_reply_is_quoted_up_to_120_characters() {
    let exactly = "x".repeat(120);
    assert_eq!(shorten(&exactly), exactly);
    assert_eq!(shorten(&"é".repeat(121)), format!("{}…", "é".repeat(120)));
    assert_eq!(shorten("abc"), "abc");
    assert_eq!(shorten(""), "");
    assert_eq!(shorten("a\u{7}b"), "a\\u{7}b");
}
