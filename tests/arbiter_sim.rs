//! The arbiter's acts and 4.8 claims through the daemon on the device
//! models (`tocada sim --script`): as replay events they decide what
//! `tocada replay` decides; as the panel's buttons (the script's `adjust`
//! and `draw` lines are button presses on the models) the pause menu and
//! the claim gesture reach the referee.

mod support {
    pub mod cli;
    pub mod sim;
}

use serde_json::Value;
use support::sim::{effects, run, sim_and_replay, untimed};

#[test]
fn waive_takeback_and_adjudicate_through_the_daemon_decide_what_replay_decides() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300+2"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":950,"ev":"untouch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"pause"}
{"t":3500,"ev":"waive"}
{"t":4000,"ev":"resume"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"lift","sq":"e7"}
{"t":5500,"ev":"place","sq":"e5"}
{"t":6000,"ev":"press","side":"black"}
{"t":7000,"ev":"pause"}
{"t":7500,"ev":"takeback"}
{"t":8000,"ev":"lift","sq":"e5"}
{"t":8100,"ev":"place","sq":"e7"}
{"t":9000,"ev":"adjudicate","result":"1-0","reason":"Black refused to play on"}
{"t":9500,"ev":"end"}
"#;
    let (sim, bare) = sim_and_replay(script);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    let names: Vec<&str> = sim.iter().map(|e| e["effect"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "started",
            "violation",
            "paused",
            "waived",
            "resumed",
            "move",
            "move",
            "paused",
            "takeback",
            "result"
        ]
    );
    // The acts come at their own instants, with their fields exactly.
    assert_eq!(
        sim[3],
        serde_json::json!({"t":3500,"effect":"waived","side":"white","law":"4.3.1"})
    );
    assert_eq!(
        sim[8],
        serde_json::json!({"t":7500,"effect":"takeback","side":"black","n":1,"san":"e5"})
    );
    assert_eq!(
        sim[9],
        serde_json::json!({"t":9000,"effect":"result","result":"1-0","reason":"adjudicated","detail":"Black refused to play on"})
    );
}

#[test]
fn a_claim_through_the_daemon_decides_what_replay_decides() {
    let script = r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}
{"t":0,"ev":"press","side":"black"}
{"t":900,"ev":"touch","sq":"g1"}
{"t":950,"ev":"untouch","sq":"g1"}
{"t":1000,"ev":"lift","sq":"e2"}
{"t":1500,"ev":"place","sq":"e4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"claim","side":"black"}
{"t":3500,"ev":"lift","sq":"e4"}
{"t":3600,"ev":"place","sq":"e2"}
{"t":4000,"ev":"lift","sq":"g1"}
{"t":4100,"ev":"place","sq":"f3"}
{"t":4500,"ev":"press","side":"white"}
{"t":5000,"ev":"end"}
"#;
    let (sim, bare) = sim_and_replay(script);
    assert_eq!(untimed(&sim), untimed(&bare), "{sim:#?}\n{bare:#?}");
    assert_eq!(
        sim[3],
        serde_json::json!({"t":3000,"effect":"claim","side":"black","law":"4.3.1","upheld":true})
    );
    assert_eq!(
        sim[4],
        serde_json::json!({"t":3000,"effect":"takeback","side":"white","n":1,"san":"e4"})
    );
    assert_eq!(sim[5]["san"], "Nf3");
}

#[test]
fn the_panels_buttons_take_back_and_claim_through_the_daemon() {
    // Paused, Black's adjust button (on the right) steps through the fields
    // to "Take back move" (the ninth), and Black's draw button is "+".
    let mut script = String::from(
        r#"{"t":0,"ev":"setup","time_control":"300","enforcement":"claim"}
{"t":0,"ev":"press","side":"black"}
{"t":1000,"ev":"lift","sq":"d2"}
{"t":1500,"ev":"place","sq":"d4"}
{"t":2000,"ev":"press","side":"white"}
{"t":3000,"ev":"pause"}
"#,
    );
    for i in 0..8 {
        script.push_str(&format!(
            "{{\"t\":{},\"ev\":\"adjust\",\"side\":\"black\"}}\n",
            3_100 + i * 10
        ));
    }
    script.push_str(
        r#"{"t":3500,"ev":"draw","side":"black"}
{"t":3600,"ev":"lift","sq":"d4"}
{"t":3700,"ev":"place","sq":"d2"}
{"t":4000,"ev":"resume"}
{"t":4200,"ev":"touch","sq":"g1"}
{"t":4250,"ev":"untouch","sq":"g1"}
{"t":4300,"ev":"lift","sq":"e2"}
{"t":4500,"ev":"place","sq":"e4"}
{"t":5000,"ev":"press","side":"white"}
{"t":6000,"ev":"adjust","side":"black"}
{"t":6300,"ev":"adjust","side":"black"}
{"t":7000,"ev":"end"}
"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("buttons.jsonl");
    std::fs::write(&path, &script).unwrap();
    let (out, err, code) = run(&["sim", "--script", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let sim = effects(&out);
    let acts: Vec<&Value> = sim
        .iter()
        .filter(|e| ["takeback", "claim"].contains(&e["effect"].as_str().unwrap()))
        .collect();
    assert_eq!(
        acts,
        [
            &serde_json::json!({"t":3500,"effect":"takeback","side":"white","n":1,"san":"d4"}),
            &serde_json::json!({"t":6300,"effect":"claim","side":"black","law":"4.3.1","upheld":true}),
            &serde_json::json!({"t":6300,"effect":"takeback","side":"white","n":1,"san":"e4"}),
        ],
        "{sim:#?}"
    );
}
