//! The learned finder (`pipeline::learned_finder`) measured on its own.
//!
//! `cargo run --release --example finder_alone` reads the varied sets'
//! frames (re-rendered from their seeds): a card at least 99% in view is
//! found when every corner of an outline lies within 4% of the card's
//! width of its true corner, as the network outlines it ("rough"), once
//! refined by the staged finding's `refine` ("refined"), and once fitted
//! on the card's edge by `learned_finder::fitted` ("fitted"; rough where
//! either fails); "located" counts a card outlined where it lies and
//! near its size (middle within a quarter of its width, width within a
//! quarter) however precisely; an outline whose middle lies on no card is
//! a phantom (also counted among the outlines an edge was fitted to: the
//! finder drops the rest). By surface, deck, light and card width, with the time a frame.
//!
//! `-- --long N` shrinks frames to a long side of N pixels instead of the
//! finder's own. `-- --real SET` reads a real-photo set instead (`labels.json`, every
//! card's whole box, `../shared/real-photos/pinochle`; read where it lies,
//! nothing kept): a labelled card is found when an outline's box overlaps
//! its box by IoU 0.5 or more; an outline matching none is a phantom; the
//! same again for the fitted outlines alone. By subset (webcam frames,
//! phone shots). `-- --draw DIR` draws each frame's outlines into DIR:
//! truth blue, rough red, fitted green, and the network's marks beside
//! it, a pixel a cell (table black, interior white, edge band grey). `-- --unseen N` reads no fixture:
//! it renders the varied sets' specs again with their seeds moved on by N
//! million (N from 1), frames no setting of the finder was chosen on, as
//! `examples/accuracy -- --unseen N` does for the reader.
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use arbiter::vision::pipeline::finding::refine;
use arbiter::vision::pipeline::geometry::Quad;
use arbiter::vision::pipeline::learned_finder::{LONG_SIDE, LearnedFinder, fitted, outlines};
use arbiter::vision::pipeline::plane::Plane;
use arbiter_testkit::fixtures::tables::{Factors, rendered, rendered_frames, table_sets_seeded};
use arbiter_testkit::scene::Scene;

/// How far each side is sought when refining, over the card's width.
const REACH: f32 = 0.12;
/// The least step in lightness refining takes for an edge (the table
/// model's least).
const MIN_STEP: f32 = 10.0;

#[derive(Default)]
struct Tally {
    cards: usize,
    /// Outlined where the card lies and near its size (middle within a
    /// quarter of its width, width within a quarter), however precisely.
    located: usize,
    rough: usize,
    refined: usize,
    fitted: usize,
    phantoms: usize,
    /// Phantoms among the outlines an edge was fitted to.
    fitted_phantoms: usize,
    frames: usize,
}

impl Tally {
    fn line(&self, key: &str) -> String {
        let pct = |n: usize| 100.0 * n as f32 / self.cards.max(1) as f32;
        format!(
            "{key:24} {:5} cards  located {:5.1}%  rough {:5.1}%  refined {:5.1}%  fitted {:5.1}%  phantoms {:4} ({:4} fitted) in {:3} frames",
            self.cards,
            pct(self.located),
            pct(self.rough),
            pct(self.refined),
            pct(self.fitted),
            self.phantoms,
            self.fitted_phantoms,
            self.frames
        )
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn close(found: &Quad, truth: &[(f32, f32); 4], width: f32) -> bool {
    // Either way round: the outline's first corner may be any of the four
    // (a card has no top to a finder).
    (0..4).any(|shift| {
        (0..4).all(|i| {
            let (p, t) = (found.0[(i + shift) % 4], truth[i]);
            (p.0 - t.0).hypot(p.1 - t.1) <= 0.04 * width
        })
    })
}

/// The long side frames are shrunk to (`--long N`; the finder's own by
/// default).
fn long_side() -> u32 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--long")
        .and_then(|i| args.get(i + 1))
        .map_or(LONG_SIDE, |v| v.parse().expect("--long N"))
}

/// Where to draw each frame's outlines (`--draw DIR`): the truth blue,
/// the network's rough outlines red, the fitted ones green.
fn draw_dir() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == "--draw")?;
    Some(args.get(i + 1).expect("--draw DIR").clone())
}

/// The network's rough outlines on `img`, and each fitted on the card's
/// edge (`None` where no edge fits: the finder drops it).
fn outlines_of(net: &LearnedFinder, img: &image::RgbImage) -> (Vec<Quad>, Vec<Option<Quad>>) {
    let marks = net.marks_at(img, long_side()).expect("the finder runs");
    let rough = outlines(&marks);
    let fit = rough.iter().map(|q| fitted(img, q, &marks)).collect();
    (rough, fit)
}

/// The frames to read: the varied sets', or with `--unseen N` their
/// specs drawn again with seeds moved on by N million.
fn frames() -> Box<dyn Iterator<Item = (Scene, Factors)>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(i) = args.iter().position(|a| a == "--unseen") else {
        return Box::new(rendered_frames());
    };
    let n: u64 = args
        .get(i + 1)
        .and_then(|v| v.parse().ok())
        .filter(|&n| n >= 1)
        .expect("--unseen N, N from 1");
    println!("varied sets' specs, seeds moved on by {n} million (frames never tuned on):");
    Box::new(rendered(table_sets_seeded(n * 1_000_000)))
}

/// The network's marks on `img`, a pixel a cell: table black, a card's
/// interior white, the edge band grey.
fn save_marks(net: &LearnedFinder, img: &image::RgbImage, path: &str) {
    use arbiter::vision::pipeline::learned_finder::Mark;
    let marks = net.marks_at(img, long_side()).expect("the finder runs");
    let out = image::GrayImage::from_fn(marks.width as u32, marks.height as u32, |x, y| {
        image::Luma([match marks.cells[y as usize * marks.width + x as usize] {
            Mark::Table => 0,
            Mark::Interior => 255,
            Mark::Edge => 128,
        }])
    });
    out.save(path).expect("saved");
}

fn renders() {
    let net = LearnedFinder::embedded();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    let mut times = Vec::new();
    for (scene, fac) in frames() {
        let clock = Instant::now();
        let (rough, fits) = outlines_of(net, &scene.image);
        // For precision, the rough outline where no edge fits.
        let fitted: Vec<Quad> = rough
            .iter()
            .zip(&fits)
            .map(|(r, f)| f.unwrap_or(*r))
            .collect();
        times.push(clock.elapsed());
        let full = Plane::luma(&scene.image);
        let refined: Vec<Quad> = rough
            .iter()
            .map(|q| refine(&full, q, MIN_STEP, None, REACH).map_or(*q, |(r, _)| r))
            .collect();

        if let Some(dir) = draw_dir() {
            use imageproc::drawing::draw_hollow_polygon_mut;
            use imageproc::point::Point;
            let mut img = scene.image.clone();
            let poly = |q: &[(f32, f32); 4]| q.map(|p| Point::new(p.0, p.1)).to_vec();
            for t in &scene.truth {
                draw_hollow_polygon_mut(&mut img, &poly(&t.corners_px), image::Rgb([0, 0, 255]));
            }
            for q in &rough {
                draw_hollow_polygon_mut(&mut img, &poly(&q.0), image::Rgb([255, 0, 0]));
            }
            for q in &fitted {
                draw_hollow_polygon_mut(&mut img, &poly(&q.0), image::Rgb([0, 255, 0]));
            }
            let n = times.len();
            img.save(format!("{dir}/{n:03}-{}.png", fac.surface))
                .expect("saved");
            save_marks(net, &scene.image, &format!("{dir}/{n:03}-marks.png"));
        }
        let keys = [
            "all".to_string(),
            format!("surface {}", fac.surface),
            format!("deck {}", fac.deck),
            format!("light {}", fac.light),
            format!("width {}", fac.width_band()),
        ];
        let phantoms = rough
            .iter()
            .filter(|q| {
                let c = q.centre();
                !scene.truth.iter().any(|t| Quad(t.corners_px).contains(c))
            })
            .count();
        let fitted_phantoms = fits
            .iter()
            .flatten()
            .filter(|q| {
                let c = q.centre();
                !scene.truth.iter().any(|t| Quad(t.corners_px).contains(c))
            })
            .count();
        for key in &keys {
            let e = by.entry(key.clone()).or_default();
            e.frames += 1;
            e.phantoms += phantoms;
            e.fitted_phantoms += fitted_phantoms;
        }
        for t in scene.truth.iter().filter(|t| t.visible >= 0.99) {
            let q = Quad(t.corners_px);
            let w = q.width();
            let r = rough.iter().any(|f| close(f, &t.corners_px, w));
            let located = rough.iter().any(|f| {
                let (a, b) = (f.centre(), q.centre());
                (a.0 - b.0).hypot(a.1 - b.1) <= 0.25 * w && (f.width() - w).abs() <= 0.25 * w
            });
            let f = refined.iter().any(|f| close(f, &t.corners_px, w));
            let g = fitted.iter().any(|f| close(f, &t.corners_px, w));
            for key in &keys {
                let e = by.entry(key.clone()).or_default();
                e.cards += 1;
                e.rough += usize::from(r);
                e.located += usize::from(located);
                e.refined += usize::from(f);
                e.fitted += usize::from(g);
            }
        }
    }
    for (k, t) in &by {
        println!("{}", t.line(k));
    }
    println!(
        "network and outlines: median {:.1} ms a frame ({} frames, this machine, all its cores)",
        median(times.clone()).as_secs_f64() * 1000.0,
        times.len()
    );
}

/// How many of the labelled boxes `truth` an outline's box matches (IoU
/// at least 0.5, best overlap first, one each), and how many outlines
/// match none.
fn matched(outlines: &[Quad], truth: &[[f32; 4]], (w, h): (f32, f32)) -> (usize, usize) {
    let boxes: Vec<[f32; 4]> = outlines
        .iter()
        .map(|q| {
            let xs = q.0.map(|p| p.0);
            let ys = q.0.map(|p| p.1);
            [
                xs.iter().cloned().fold(f32::INFINITY, f32::min).max(0.0),
                ys.iter().cloned().fold(f32::INFINITY, f32::min).max(0.0),
                xs.iter().cloned().fold(0.0, f32::max).min(w),
                ys.iter().cloned().fold(0.0, f32::max).min(h),
            ]
        })
        .collect();
    let mut pairs: Vec<(f32, usize, usize)> = boxes
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            truth
                .iter()
                .enumerate()
                .map(move |(j, t)| (iou(*b, *t), i, j))
        })
        .filter(|p| p.0 >= 0.5)
        .collect();
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut used_f, mut used_t) = (vec![false; boxes.len()], vec![false; truth.len()]);
    for (_, i, j) in pairs {
        if !used_f[i] && !used_t[j] {
            used_f[i] = true;
            used_t[j] = true;
        }
    }
    (
        used_t.iter().filter(|u| **u).count(),
        used_f.iter().filter(|u| !**u).count(),
    )
}

fn iou(a: [f32; 4], b: [f32; 4]) -> f32 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = ix * iy;
    let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

fn real(set: &std::path::Path) {
    let path = set.join("labels.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let labels: BTreeMap<String, Vec<serde_json::Value>> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let net = LearnedFinder::embedded();
    let mut by: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut times = Vec::new();
    for (rel, cards) in &labels {
        let file = set.join(rel);
        let img = image::open(&file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .to_rgb8();
        let clock = Instant::now();
        let (found, fits) = outlines_of(net, &img);
        times.push(clock.elapsed());
        let fitted: Vec<Quad> = fits.iter().flatten().copied().collect();
        let truth: Vec<[f32; 4]> = cards
            .iter()
            .filter_map(|c| {
                let b = c["box"].as_array()?;
                let v: Vec<f32> = b
                    .iter()
                    .filter_map(|x| x.as_f64())
                    .map(|x| x as f32)
                    .collect();
                (v.len() == 4).then(|| [v[0], v[1], v[2], v[3]])
            })
            .collect();
        if let Some(dir) = draw_dir() {
            use imageproc::drawing::{draw_hollow_polygon_mut, draw_hollow_rect_mut};
            use imageproc::point::Point;
            let mut out = img.clone();
            let poly = |q: &[(f32, f32); 4]| q.map(|p| Point::new(p.0, p.1)).to_vec();
            for t in &truth {
                let r = imageproc::rect::Rect::at(t[0] as i32, t[1] as i32)
                    .of_size((t[2] - t[0]).max(1.0) as u32, (t[3] - t[1]).max(1.0) as u32);
                draw_hollow_rect_mut(&mut out, r, image::Rgb([0, 0, 255]));
            }
            for q in &found {
                draw_hollow_polygon_mut(&mut out, &poly(&q.0), image::Rgb([255, 0, 0]));
            }
            for q in &fitted {
                draw_hollow_polygon_mut(&mut out, &poly(&q.0), image::Rgb([0, 255, 0]));
            }
            let name = rel.rsplit('/').next().unwrap_or(rel);
            out.save(format!("{dir}/{name}.png")).expect("saved");
            save_marks(net, &img, &format!("{dir}/{name}-marks.png"));
        }
        let size = (img.width() as f32, img.height() as f32);
        let (found_right, found_phantoms) = matched(&found, &truth, size);
        let (fitted_right, fitted_phantoms) = matched(&fitted, &truth, size);
        let sub = if rel
            .rsplit('/')
            .next()
            .unwrap_or(rel)
            .starts_with("cam_image")
        {
            "webcam"
        } else {
            "phone"
        };
        let e = by.entry(sub).or_default();
        e.frames += 1;
        e.cards += truth.len();
        e.rough += found_right;
        e.phantoms += found_phantoms;
        e.fitted += fitted_right;
        e.fitted_phantoms += fitted_phantoms;
    }
    for (k, t) in &by {
        let pct = |n: usize| 100.0 * n as f32 / t.cards.max(1) as f32;
        let each = |n: usize| n as f32 / t.frames.max(1) as f32;
        println!(
            "real {k:8} {:4} cards  found {:5.1}% ({:.2} phantoms a frame); fitted, unfitted dropped: {:5.1}% ({:.2} phantoms a frame)  [{} frames]",
            t.cards,
            pct(t.rough),
            each(t.phantoms),
            pct(t.fitted),
            each(t.fitted_phantoms),
            t.frames
        );
    }
    println!(
        "network and outlines: median {:.1} ms a frame ({} frames)",
        median(times.clone()).as_secs_f64() * 1000.0,
        times.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().position(|a| a == "--real") {
        Some(i) => real(std::path::Path::new(
            args.get(i + 1)
                .expect("--real SET (a folder with labels.json)"),
        )),
        None => renders(),
    }
}
