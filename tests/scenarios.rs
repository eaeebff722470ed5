use fencing_lab::sim::{Scenario, Session};
use fencing_lab::FenceCheck;
use std::sync::Arc;
#[test]
fn print_all() {
    for s in Scenario::all_built_in() {
        for fencing in [true, false] {
            let scenario = Arc::new(s.clone());
            let mut session = Session::new(scenario.clone(), 1, fencing, FenceCheck::PerKey);
            session.seek(scenario.end);
            println!(
                "== {} fencing={fencing} {:?}",
                s.name,
                session.world().stats()
            );
            if s.name == "chaos" {
                println!("{} events", session.world().events().len());
                continue;
            }
            for e in session.world().events() {
                println!("{:>6} {}", e.t, e.describe(&s.lock));
            }
        }
    }
}
