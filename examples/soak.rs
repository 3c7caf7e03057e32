//! `cargo run --release --example soak -- [--game NAME|all] [--games N]
//! [--players 2..4] [--seed S]`: random legal games of each game through
//! the referee, in-between tables included, and one physical mistake of
//! each kind injected per game (see `arbiter_testkit::soak`). Prints a row per game and
//! exits 1 when a legal game raised a flag or a mistake was not caught.

use arbiter_testkit::soak;

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut game = "all".to_string();
    let mut games = 1000usize;
    let mut players = vec![2, 3, 4];
    let mut seed = 0u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("soak: {name} needs a value");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--game" => game = value("--game"),
            "--games" => games = parse(&value("--games"), "--games"),
            "--seed" => seed = parse(&value("--seed"), "--seed"),
            "--players" => {
                let v = value("--players");
                players = match v.split_once("..") {
                    Some((lo, hi)) => (parse(lo, "--players")..=parse(hi, "--players")).collect(),
                    None => vec![parse(&v, "--players")],
                };
                if players.is_empty() || players.iter().any(|n| !(2..=4).contains(n)) {
                    eprintln!("soak: --players takes 2 to 4, or a range such as 2..4");
                    return ExitCode::from(2);
                }
            }
            other => {
                eprintln!(
                    "soak: unknown argument {other}; usage: soak [--game NAME|all] [--games N] [--players 2..4] [--seed S]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let names: Vec<&str> = if game == "all" {
        soak::GAMES.to_vec()
    } else if let Some(&g) = soak::GAMES.iter().find(|&&g| g == game) {
        vec![g]
    } else {
        eprintln!("soak: no game {game} (one of {})", soak::GAMES.join(", "));
        return ExitCode::from(2);
    };
    println!("{}", soak::HEADER);
    let mut ok = true;
    for name in names {
        let t = Instant::now();
        let r = soak::soak(name, games, &players, seed);
        println!("{}  ({:.1} s)", soak::row(&r), t.elapsed().as_secs_f64());
        for f in &r.failures {
            println!("    {f}");
        }
        ok &= r.ok();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn parse<T: std::str::FromStr>(s: &str, name: &str) -> T {
    s.trim().parse().unwrap_or_else(|_| {
        eprintln!("soak: {name}: {s:?} is not a number");
        std::process::exit(2)
    })
}
