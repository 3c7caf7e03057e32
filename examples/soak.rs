//! `cargo run --release --example soak -- [--game NAME|all] [--games N]
//! [--players 2..4] [--seed S | --seeds A..B] [--first K] [--threads T]`:
//! random legal games of each game through the referee, in-between tables
//! included, and one physical mistake of each kind injected per game (see
//! `arbiter_testkit::soak`). Games K..K+N of each seed (A..B is A to B-1),
//! spread over T threads (all cores by default; each game draws from its
//! own generator, so the figures do not depend on T). Prints a row per game
//! and seed, and exits 1 when a legal game raised a flag, a mistake was
//! not caught, or a message pointed at the wrong card; each failure ends
//! with the one-line command that replays its game alone.

use arbiter_testkit::soak;

use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: soak [--game NAME|all] [--games N] [--players 2..4] [--seed S | --seeds A..B] [--first K] [--threads T]";

fn main() -> ExitCode {
    let mut game = "all".to_string();
    let mut games = 1000usize;
    let mut first = 0usize;
    let mut players = vec![2, 3, 4];
    let mut seeds = 0u64..1;
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("soak: {name} needs a value; {USAGE}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--game" => game = value("--game"),
            "--games" => games = parse(&value("--games"), "--games"),
            "--first" => first = parse(&value("--first"), "--first"),
            "--threads" => threads = parse::<usize>(&value("--threads"), "--threads").max(1),
            "--seed" => {
                let s = parse(&value("--seed"), "--seed");
                seeds = s..s + 1;
            }
            "--seeds" => {
                let v = value("--seeds");
                let Some((lo, hi)) = v.split_once("..") else {
                    eprintln!("soak: --seeds takes a range A..B (A to B-1), not {v:?}");
                    return ExitCode::from(2);
                };
                seeds = parse(lo, "--seeds")..parse(hi, "--seeds");
                if seeds.is_empty() {
                    eprintln!("soak: --seeds {v} holds no seed");
                    return ExitCode::from(2);
                }
            }
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
                eprintln!("soak: unknown argument {other}; {USAGE}");
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
    println!("seed       {}", soak::HEADER);
    let mut ok = true;
    for seed in seeds {
        for &name in &names {
            let t = Instant::now();
            let r = soak::soak_range(name, seed, first..first + games, &players, threads);
            println!(
                "{seed:<10} {}  ({:.1} s)",
                soak::row(&r),
                t.elapsed().as_secs_f64()
            );
            for f in &r.failures {
                println!("    {f}");
            }
            ok &= r.ok();
        }
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
