//! One frame of the varied sets, card by card: for each card in the truth,
//! what the finder made of it (read right, read wrong, outlined but not
//! read, or not found) and whether it reads right at its true corners; then
//! the detections that match no card. Draws the frame with the detections
//! (green read, orange not read) and the missed cards' true outlines (red)
//! to `$TMPDIR/probe-<set>-<index>.png`. The tool to follow one bad line of
//! the accuracy report down to its cause:
//! `cargo run --release --example probe_frame -- decks 14` (and a frame of
//! `accuracy --unseen 2`: `-- decks 14 2`).
use arbiter::vision::cards::Identify;
use arbiter::vision::finder::find;
use arbiter_testkit::fixtures::tables::{DeckModels, factors, render_frame, table_sets_seeded};
use image::Rgb;

#[path = "shared/draw.rs"]
mod draw;
use draw::{dist, draw};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (set, index, unseen) = match args.as_slice() {
        [set, index] => (set, index, 0),
        [set, index, n] => (
            set,
            index,
            n.parse::<u64>().map_err(|_| format!("{n}: not a number"))?,
        ),
        _ => {
            return Err("usage: probe_frame SET INDEX [UNSEEN] (as the accuracy report names a frame; UNSEEN as its --unseen)".into());
        }
    };
    let index: usize = index
        .parse()
        .map_err(|_| format!("{index}: not an index"))?;
    let sets = table_sets_seeded(unseen * 1_000_000);
    let set_frames = &sets
        .iter()
        .find(|s| s.name == set)
        .ok_or_else(|| format!("{set}: no such set"))?
        .frames;
    let f = set_frames
        .get(index)
        .ok_or_else(|| format!("{set} has {} frames", set_frames.len()))?;
    let scene = render_frame(f);
    let fac = factors(f, &scene);
    println!("{}", fac.line());
    let mut models = DeckModels::default();
    let model = models.get(&fac.deck).map_err(|e| e.to_string())?;
    let started = std::time::Instant::now();
    let finding = find(&scene.image, model);
    println!(
        "{} detections in {:.1} ms, hand {}",
        finding.cards.len(),
        started.elapsed().as_secs_f64() * 1e3,
        finding.hand
    );
    let mut picture = scene.image.clone();
    let mut matched = vec![false; finding.cards.len()];
    for t in &scene.truth {
        let short = dist(t.corners_px[0], t.corners_px[1]);
        let det = finding
            .cards
            .iter()
            .enumerate()
            .filter(|(_, d)| dist(d.centre, t.centre_px) < 0.3 * short)
            .min_by(|(_, a), (_, b)| {
                dist(a.centre, t.centre_px).total_cmp(&dist(b.centre, t.centre_px))
            });
        let (at_truth, truth_conf) = model.identify_in(&scene.image, &t.corners_px);
        let fate = match det {
            Some((k, d)) => {
                matched[k] = true;
                let size = |c: &[(f32, f32); 4]| {
                    dist(c[0], c[1]) + dist(c[1], c[2]) + dist(c[2], c[3]) + dist(c[3], c[0])
                };
                let ratio = size(&d.corners) / size(&t.corners_px);
                match d.token {
                    Some(tok) if tok == t.token => format!("right (size {ratio:.3})"),
                    Some(tok) => format!("WRONG {tok:?} {:.2}", d.confidence),
                    None => format!("?? {:.2}", d.confidence),
                }
            }
            None => {
                draw(&mut picture, &t.corners_px, Rgb([255, 0, 0]));
                "missing".to_string()
            }
        };
        if !fate.starts_with("right") || std::env::var_os("ALL").is_some() {
            println!(
                "{:?} {:?} at ({:.0},{:.0}) seen {:.2} angle {:.1}: {fate}; at truth {} {:.2} {}",
                t.cell,
                t.token,
                t.centre_px.0,
                t.centre_px.1,
                t.visible,
                t.angle_deg,
                if at_truth == Some(t.token) {
                    "right"
                } else {
                    "not"
                },
                truth_conf,
                if std::env::var_os("CORNERS").is_some() {
                    format!("{:?}", t.corners_px.map(|p| (p.0.round(), p.1.round())))
                } else {
                    String::new()
                }
            );
        }
    }
    for (d, m) in finding.cards.iter().zip(&matched) {
        let colour = if d.token.is_some() {
            Rgb([0, 255, 0])
        } else {
            Rgb([255, 140, 0])
        };
        draw(&mut picture, &d.corners, colour);
        if !m {
            println!(
                "no card under detection at ({:.0},{:.0}): {:?} {:.2}",
                d.centre.0, d.centre.1, d.token, d.confidence
            );
        }
    }
    // CROP=x0,y0,x1,y1: that part of the frame, unmarked (marked too with
    // MARKED set), four times as large, beside the marked picture.
    if let Ok(crop) = std::env::var("CROP") {
        let v: Vec<u32> = crop.split(',').filter_map(|x| x.parse().ok()).collect();
        if let [x0, y0, x1, y1] = v[..] {
            let from = if std::env::var_os("MARKED").is_some() {
                &picture
            } else {
                &scene.image
            };
            let part = image::imageops::crop_imm(from, x0, y0, x1 - x0, y1 - y0).to_image();
            let big = image::imageops::resize(
                &part,
                4 * (x1 - x0),
                4 * (y1 - y0),
                image::imageops::FilterType::Nearest,
            );
            let out = std::env::temp_dir().join(format!("probe-{set}-{index:03}-crop.png"));
            big.save(&out)
                .map_err(|e| format!("{}: {e}", out.display()))?;
        }
    }
    let out = std::env::temp_dir().join(format!("probe-{set}-{index:03}.png"));
    picture
        .save(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("-> {}", out.display());
    Ok(())
}
