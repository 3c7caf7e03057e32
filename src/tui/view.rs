//! Drawing the app: a function of its state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::board::{BoardView, card_style};
use super::chessboard::ChessboardView;
use super::{App, Banner, Health, Source};
use crate::event::{EventBody, FlagKind};
use crate::games::Panel;
use crate::observation::Observation;
use crate::table::Colour;

pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let side_w = if area.width >= 140 { 56 } else { 40 }.min(area.width / 2);
    let [left, right] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(side_w)]).areas(main);

    let panel = app.referee.panel();
    draw_board(app, &panel, frame, left);
    let mut game_lines = panel.chessboard.then(|| game_lines(app, &panel));
    let players_h = match &mut game_lines {
        Some(lines) => {
            let room = right.height / 2;
            if wrapped_height(lines, right.width) > room {
                // Short of rows: the blank lines between groups go first.
                lines.retain(|l| l.width() > 0);
            }
            wrapped_height(lines, right.width).min(room.max(right.height.saturating_sub(8)))
        }
        None => (panel.players.len() as u16) * 3 + panel.notes.len() as u16 + 2,
    };
    let flags_h = flags_height(app, right.width);
    let [players, flags, log] = Layout::vertical([
        Constraint::Length(players_h),
        Constraint::Length(flags_h),
        Constraint::Min(3),
    ])
    .areas(right);
    match game_lines {
        Some(lines) => frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .block(Block::bordered().title(" Game ")),
            players,
        ),
        None => draw_players(&panel, frame, players),
    }
    draw_flags(app, frame, flags);
    draw_log(app, frame, log);
    draw_status(app, &panel, frame, status);
    if let Some(c) = &app.chooser {
        let lines = c.lines();
        let w = lines
            .iter()
            .map(Line::width)
            .chain([c.title().chars().count() + 2])
            .max()
            .unwrap_or(0) as u16
            + 2;
        let r = popup(area, w, lines.len() as u16 + 2);
        frame.render_widget(Clear, r);
        frame.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(c.title())),
            r,
        );
    }
    if app.help {
        draw_help(app, &panel, frame, area);
    }
    if app.confirm_quit {
        draw_confirm(frame, area);
    }
}

fn colour_style(c: Colour) -> Style {
    match c {
        Colour::White => Style::new().fg(Color::White),
        Colour::Black => Style::new().fg(Color::Gray),
        Colour::Red => Style::new().fg(Color::LightRed),
        Colour::Blue => Style::new().fg(Color::LightBlue),
        Colour::Yellow => Style::new().fg(Color::Yellow),
    }
    .add_modifier(Modifier::BOLD)
}

fn draw_board(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    let mut title = format!(
        " arbiter · {} · {} ",
        game_title(&app.game),
        app.players.join(" vs ")
    );
    if title.chars().count() + 2 > area.width as usize {
        // A narrow board keeps what tells the game apart.
        title = format!(" {} · {} ", game_title(&app.game), app.players.join(" vs "));
    }
    let block = Block::bordered().title(title.bold());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let flagged: Vec<_> = app
        .open_flags()
        .iter()
        .flat_map(|f| f.cells.iter().copied())
        .collect();
    let attackers: Vec<_> = app
        .banners
        .iter()
        .flat_map(|b| match b {
            Banner::Check { attackers, .. } => attackers.clone(),
            _ => vec![],
        })
        .collect();
    let table = app
        .observed
        .as_ref()
        .unwrap_or(app.referee.expected_table());
    let (cursor, marked) = match &app.source {
        Source::Mock(m) => (Some(m.cursor()), m.marked()),
        Source::Script(_) | Source::Live(_) => (None, None),
    };
    if panel.chessboard {
        // The mock's board as it is now, a piece in hand included (gone
        // from its square, which is marked): the referee sees it only once
        // the hand is free.
        let live;
        let (table, marked) = match &app.source {
            Source::Mock(m) => {
                live = m.table();
                (&live, marked.or(m.held().map(|(_, from)| from)))
            }
            _ => (table, marked),
        };
        frame.render_widget(
            ChessboardView {
                table,
                flagged: &flagged,
                last_action: &app.last_action,
                attackers: &attackers,
                cursor,
                marked,
            },
            inner,
        );
        return;
    }
    frame.render_widget(
        BoardView {
            table,
            flagged: &flagged,
            last_action: &app.last_action,
            attackers: &attackers,
            cursor,
            marked,
            limit: app.referee.panel().limit,
        },
        inner,
    );
}

fn game_title(name: &str) -> &str {
    match name {
        "enprise" => "En Prise",
        "doublecross" => "DoubleCross",
        "twelve" => "Twelve",
        "enochian" => "Enochian Chess",
        other => other,
    }
}

/// The rows a paragraph of `lines` takes in a bordered box `width` wide.
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    rows as u16 + 2
}

/// The panel of a game on a chessboard played with cards (DoubleCross):
/// the drawn card first, the piles, each player's colour, discards and
/// held card, then the removal right, the removed pieces and the result.
fn game_lines(app: &App, panel: &Panel) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    // The result first: once the game is over nothing else matters as much.
    if let Some(r) = &panel.result {
        lines.push(Line::styled(
            format!(" Result: {r}"),
            Style::new().fg(Color::Black).bg(Color::Green).bold(),
        ));
    }
    let label = |s: &str| Span::raw(format!(" {s:<7} ")).dim();
    let mut rest: Vec<Line> = Vec::new();
    let cards = panel.cards.clone().unwrap_or_default();
    if let Some((card, who)) = &cards.drawn {
        let style = match cards.drawn_colour {
            Some(c) => card_style(c),
            // A Joust card.
            None => card_style(Colour::Blue),
        };
        lines.push(Line::from(vec![
            Span::raw(" Drawn   ").bold(),
            Span::styled(format!(" {card} "), style),
            Span::raw(format!("  {who} to act")).italic(),
        ]));
    } else if let Some(who) = &cards.next_draw {
        let mut line = vec![
            Span::raw(" Next    ").bold(),
            Span::raw(if cards.draws_again {
                format!("{who} draws again")
            } else {
                format!("{who} to draw")
            })
            .bold(),
        ];
        if cards.draws_again {
            line.push(Span::raw(" (Save King kept)").dim());
        }
        lines.push(Line::from(line));
    }
    if let Some(p) = &cards.pending {
        lines.push(Line::styled(
            format!(" {p}"),
            Style::new().fg(Color::Black).bg(Color::LightBlue).bold(),
        ));
    }
    if cards.drawn.is_none() {
        // The card already resolved (one that could not move, a Joust
        // card, a move made) stays in view until the next draw.
        if let Some(last) = last_draw(app) {
            lines.push(Line::from(vec![label("Last"), Span::raw(last)]));
        }
    }
    lines.push(Line::from(vec![
        label("Pile"),
        Span::raw(format!(
            "{} cards · deck {} in use",
            cards.pile, cards.decks_used
        )),
    ]));
    if let Some(r) = &cards.removal_right {
        rest.push(Line::from(vec![
            Span::styled(
                " Removal right ",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ),
            Span::raw(format!(" {r}")),
        ]));
    }
    if !cards.removed.is_empty() {
        let list: Vec<String> = cards.removed.iter().map(|c| c.to_string()).collect();
        rest.push(Line::from(vec![
            label("Removed"),
            Span::raw(counted(&list.join(" "))),
        ]));
    }
    for n in &panel.notes {
        rest.push(Line::from(format!(" {n}")));
    }
    lines.push(Line::from(""));
    for (i, p) in panel.players.iter().enumerate() {
        let name = app
            .players
            .get(i)
            .map(|n| format!("{} player", super::title(n)))
            .unwrap_or_else(|| p.colour.title().to_string());
        let mut head = vec![
            Span::raw(if p.to_move { "▶ " } else { "  " }),
            Span::raw(name).bold(),
        ];
        let mut facts = Vec::new();
        for n in &p.notes {
            if let Some(side) = n.strip_prefix("plays ") {
                // After Switch Sides a player plays the other colour: the
                // colour he moves now stands out.
                let switched = app.players.get(i).is_some_and(|me| me != side);
                head.push(Span::raw(" · plays "));
                let style = colour_style(p.colour);
                head.push(Span::styled(
                    if switched {
                        side.to_uppercase()
                    } else {
                        side.to_string()
                    },
                    if switched { style.reversed() } else { style },
                ));
            } else if n == "holds Save King" {
                facts.push(Span::styled(
                    "holds Save King",
                    Style::new().fg(Color::Black).bg(Color::LightBlue).bold(),
                ));
            } else {
                facts.push(Span::raw(n.clone()));
            }
        }
        if p.in_check {
            head.push(Span::raw("  "));
            head.push(Span::styled(
                "IN CHECK",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ));
        }
        if p.out {
            head.push(Span::raw("  out").dim());
        }
        lines.push(Line::from(head));
        let mut second = vec![Span::raw("    ")];
        for (k, f) in facts.into_iter().enumerate() {
            if k > 0 {
                second.push(Span::raw(" · "));
            }
            second.push(f);
        }
        lines.push(Line::from(second));
    }
    if !rest.is_empty() {
        lines.push(Line::from(""));
        lines.extend(rest);
    }
    lines
}

/// The last card drawn and by whom ("wR, drawn by white").
fn last_draw(app: &App) -> Option<String> {
    app.log.iter().rev().find_map(|e| match &e.body {
        EventBody::Action(a) if a.action == "draw" => {
            let card = match (a.card, &a.joust) {
                (Some(c), _) => c.to_string(),
                (None, Some(j)) => format!("joust:{j}"),
                (None, None) => return None,
            };
            Some(format!("{card}, drawn by {}", a.player))
        }
        _ => None,
    })
}

/// A list of tokens with repeats counted: "bP bP bP wN" → "bP×3 wN".
fn counted(list: &str) -> String {
    let mut out: Vec<(String, usize)> = Vec::new();
    for t in list.split_whitespace() {
        match out.iter_mut().find(|(k, _)| k == t) {
            Some((_, n)) => *n += 1,
            None => out.push((t.to_string(), 1)),
        }
    }
    out.into_iter()
        .map(|(t, n)| if n > 1 { format!("{t}×{n}") } else { t })
        .collect::<Vec<_>>()
        .join(" ")
}

fn draw_players(panel: &Panel, frame: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = Vec::new();
    for p in &panel.players {
        let marker = if p.to_move { "▶ " } else { "  " };
        let mut head = vec![
            Span::raw(marker),
            Span::styled(title_of(p.colour), colour_style(p.colour)),
        ];
        if p.to_move {
            head.push(Span::raw("  to act").italic());
        }
        if p.in_check {
            head.push(Span::styled(
                "  IN CHECK",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ));
        }
        if p.out {
            head.push(Span::raw("  out").dim());
        }
        lines.push(Line::from(head));
        // The Battleplan: the next card stands out, the rest follow.
        let mut plan = vec![Span::raw("    ")];
        match p.plan.split_first() {
            Some((next, rest)) => {
                plan.push(Span::styled(
                    format!("[{next}]"),
                    Style::new().reversed().bold(),
                ));
                let letters: Vec<String> =
                    rest.iter().map(|c| c.piece.letter().to_string()).collect();
                let count = format!("  {} left", p.plan.len());
                // Spaced letters when they fit, packed in fives when not.
                let room = area.width.saturating_sub(2 + 4 + 5) as usize;
                let spaced = format!(" {}", letters.join(" "));
                let text = if spaced.len() + count.len() <= room {
                    spaced
                } else {
                    let packed: Vec<String> = letters.chunks(5).map(|c| c.concat()).collect();
                    format!(" {}", packed.join(" "))
                };
                plan.push(Span::raw(text));
                plan.push(Span::raw(count).dim());
            }
            None => plan.push(Span::raw("Battleplan empty: moves only").dim()),
        }
        lines.push(Line::from(plan));
        lines.push(Line::from(format!("    {}", p.notes.join("; "))).dim());
    }
    for n in &panel.notes {
        lines.push(Line::from(format!("  {n}")));
    }
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Players ")),
        area,
    );
}

fn title_of(c: Colour) -> &'static str {
    c.title()
}

/// What the flags panel says, as lines to wrap.
fn flag_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for b in &app.banners {
        let (text, style) = match b {
            Banner::Check { player, attackers } => (
                format!(
                    "CHECK: {}'s king is attacked from {}",
                    super::title(player),
                    attackers
                        .iter()
                        .map(|&c| app.cell_name(c))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ),
            Banner::Checkmate { player } => (
                format!("CHECKMATE: {}", super::title(player)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Banner::GameOver { text } => (
                text.clone(),
                Style::new().fg(Color::Black).bg(Color::Green).bold(),
            ),
        };
        lines.push(Line::styled(text, style));
    }
    for f in app.open_flags() {
        lines.push(Line::from(vec![
            Span::styled(
                format!("! {}", flag_title(f.kind)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Span::raw(format!("  {}", f.rule)).dim(),
        ]));
        lines.push(Line::from(f.message.clone()));
    }
    if app.open_flags().is_empty() && app.banners.is_empty() {
        lines.push(Line::styled(
            "The table matches the game.",
            Style::new().fg(Color::Green),
        ));
    }
    lines
}

fn flags_height(app: &App, width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = flag_lines(app)
        .iter()
        .map(|l| l.width().div_ceil(inner).max(1))
        .sum();
    (rows as u16 + 2).clamp(3, 14)
}

fn flag_title(kind: FlagKind) -> &'static str {
    match kind {
        FlagKind::MissedSwap => "Missed SWAP",
        FlagKind::MissedFlip => "Missed FLIP",
        FlagKind::MissedEliminationFlip => "Cards to turn face-down",
        FlagKind::IllegalPlacement => "Illegal placement",
        FlagKind::IllegalMove => "Illegal move",
        FlagKind::WrongCard => "Wrong card",
        FlagKind::WrongPlayer => "Not your turn",
        FlagKind::KingRequired => "King required",
        FlagKind::Unexplained => "Unexplained change",
        FlagKind::Unreadable => "Cannot read the table",
        FlagKind::MissingMove => "Missing move",
        FlagKind::IncompleteAction => "Incomplete action",
        FlagKind::ImpossibleCard => "Impossible card",
        FlagKind::UncalledCheck => "Uncalled check",
        FlagKind::IllegalRemoval => "Illegal removal",
        FlagKind::MissingRemoval => "Missing removal",
        FlagKind::ForcedKingMove => "The king must move",
        FlagKind::DivinationMismatch => "Not the piece the die named",
    }
}

fn draw_flags(app: &App, frame: &mut Frame, area: Rect) {
    let title = if app.open_flags().is_empty() {
        " Flags "
    } else {
        " Flags: mend the table "
    };
    frame.render_widget(
        Paragraph::new(flag_lines(app))
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(title)),
        area,
    );
}

fn draw_log(app: &App, frame: &mut Frame, area: Rect) {
    let rows_room = area.height.saturating_sub(2) as usize;
    let inner = area.width.saturating_sub(2).max(1) as usize;
    // On a chessboard the lines (squares, SAN, notes) run long: they wrap,
    // and the newest that fit are shown. The card board keeps one line per
    // event.
    let wrap = app.chessboard;
    let mut used = 0;
    let mut lines: Vec<Line> = Vec::new();
    for e in app
        .log
        .iter()
        .filter(|e| !matches!(e.body, EventBody::GameStarted { .. }))
        .rev()
    {
        let text = e.to_string();
        let text = text.trim_start_matches("step").trim_start();
        let style = match e.body {
            EventBody::Flag(_) => Style::new().fg(Color::LightRed),
            EventBody::Cleared { .. } => Style::new().fg(Color::Green),
            EventBody::Check { .. } | EventBody::Checkmate { .. } => Style::new().fg(Color::Yellow),
            _ => Style::new(),
        };
        // Wrapped lines hang under the event's first line, so that each
        // event reads as one.
        let rows = if wrap {
            let mut rows = wrap_words(text, inner.saturating_sub(3));
            for r in rows.iter_mut().skip(1) {
                r.insert_str(0, "   ");
            }
            rows
        } else {
            vec![text.to_string()]
        };
        if used + rows.len() > rows_room {
            break;
        }
        used += rows.len();
        lines.extend(rows.into_iter().rev().map(|r| Line::styled(r, style)));
    }
    lines.reverse();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Log ")),
        area,
    );
}

fn draw_status(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    let (health, style) = match &app.health {
        Health::Connected => ("● connected".to_string(), Style::new().fg(Color::Green)),
        Health::Busy => (
            "◌ busy: hands over the table".to_string(),
            Style::new().fg(Color::Yellow),
        ),
        Health::Unreadable => ("? unreadable".to_string(), Style::new().fg(Color::LightRed)),
        Health::Reconnecting(why) => (
            format!("↻ reconnecting ({why})"),
            Style::new().fg(Color::Yellow),
        ),
        Health::Ended => (
            "■ input ended".to_string(),
            Style::new().fg(Color::DarkGray),
        ),
    };
    let source = match &app.source {
        Source::Script(s) => {
            let (done, all) = s.position();
            let keys = if s.ended() {
                "played out"
            } else if s.timed() {
                "stepping by itself"
            } else {
                "space: next step"
            };
            // The file's name: its folder would crowd out the keys.
            let name = std::path::Path::new(&app.source_name)
                .file_name()
                .map_or(app.source_name.clone(), |n| {
                    n.to_string_lossy().into_owned()
                });
            format!("script {name} · step {done}/{all} · {keys}")
        }
        Source::Mock(m) if m.is_chessboard() => {
            let at = m.cursor().square().unwrap_or_default();
            match m.held() {
                Some((card, from)) => format!(
                    "mock board {at} · hand {} from {}",
                    card.token(),
                    from.square().unwrap_or_default()
                ),
                None => match m.card_to_place(None) {
                    Some(c) => format!("mock board {at} · u puts {c}"),
                    None => format!("mock board {at}"),
                },
            }
        }
        Source::Mock(m) => {
            let next = app.referee.next_card();
            let card = m
                .card_to_place(next)
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into());
            format!("mock table · cursor {} · placing {card}", m.cursor())
        }
        Source::Live(l) => l.name.clone(),
    };
    let mut spans = vec![
        Span::styled(health, style),
        Span::raw(format!("  {source}")),
    ];
    if let Some(h) = &app.hint {
        spans.push(Span::styled(
            format!("  {h}"),
            Style::new().fg(Color::Yellow),
        ));
    } else if let Some(keys) = input_hint(app, panel) {
        spans.push(Span::styled(
            format!("  {keys}"),
            Style::new().fg(Color::Cyan),
        ));
    }
    spans.push(Span::raw("  ?: help  q: quit").dim());
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The keys that matter now, for a game taking draws and calls from keys:
/// what the game waits for decides which.
fn input_hint(app: &App, panel: &Panel) -> Option<&'static str> {
    if !app.inputs || matches!(app.source, Source::Script(_)) || panel.result.is_some() {
        return None;
    }
    let offered = app.referee.offered_inputs();
    let offers = |call: &str| {
        offered
            .iter()
            .any(|o| matches!(o, Observation::Call { call: c, .. } if c == call))
    };
    let acting = panel.cards.as_ref().is_some_and(|c| c.drawn.is_some());
    let (mock, holding) = match &app.source {
        Source::Mock(m) => (true, m.held().is_some()),
        _ => (false, false),
    };
    // Short: the footer shares one line with the input's state, and the
    // help overlay has the rest.
    Some(if offers("save-king") {
        "K: play Save King  D: decline"
    } else if holding {
        "space: put down  Esc: put back"
    } else if acting && mock {
        "space: pick/put  !: check  n: draw"
    } else if acting {
        "!: call check  n: next draw"
    } else if mock && offers("check") {
        "n: draw  N: choose  !: check"
    } else if mock {
        "n: draw a card  N: choose it"
    } else {
        "n: say the card drawn  !: check"
    })
}

fn popup(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    let w = 76.min(area.width);
    let mut keys: Vec<(&str, Vec<(&str, &str)>)> = vec![(
        "",
        vec![
            ("?", "this help (any key closes it)"),
            (
                "q",
                "quit (asks first mid-game; the journal keeps the game)",
            ),
        ],
    )];
    match &app.source {
        Source::Script(_) => keys[0].1.push(("space n", "next step of the script")),
        Source::Live(_) => {}
        Source::Mock(m) => keys.push((
            if m.is_chessboard() {
                "Mock board"
            } else {
                "Mock table"
            },
            m.help().to_vec(),
        )),
    }
    if app.inputs && !matches!(app.source, Source::Script(_)) {
        keys.push(("Draws and calls", super::INPUT_HELP.to_vec()));
    }
    let mut legend = vec![
        ("! red", "a flagged cell: look here to mend the table"),
        ("> bold", "the last action"),
        ("+ purple", "a piece giving check"),
    ];
    if panel.chessboard {
        legend.push(("*", "the square of the piece in hand"));
        legend.push((
            "░░",
            "a dark square; wP bK: a piece's colour, then its type",
        ));
    } else {
        legend.push(("░░", "a face-down card (a vacant square)"));
    }
    let key_w = keys
        .iter()
        .flat_map(|(_, ks)| ks.iter())
        .chain(&legend)
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(8, 16);
    let section = |lines: &mut Vec<Line<'static>>, title: &str, ks: &[(&str, &str)]| {
        if !title.is_empty() {
            lines.push(Line::from(""));
            lines.push(Line::from(title.to_string()).bold());
        }
        for (k, what) in ks {
            lines.extend(help_lines(k, what, key_w, w.saturating_sub(2) as usize));
        }
    };
    let mut lines =
        vec![Line::from("The referee watches the table and flags what the rules forbid.").italic()];
    lines.push(Line::from(""));
    for (title, ks) in &keys {
        section(&mut lines, title, ks);
    }
    let mut with_legend = lines.clone();
    section(&mut with_legend, "On the board", &legend);
    // A short window keeps the keys; the legend of marks goes first.
    if with_legend.len() as u16 + 2 <= area.height {
        lines = with_legend;
    } else if lines.len() as u16 + 2 > area.height {
        lines.drain(..2);
    }
    let r = popup(area, w, lines.len() as u16 + 2);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Help ")),
        r,
    );
}

/// `text` cut into rows of at most `width` characters at spaces (a word
/// longer than a row is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut rows: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let last = rows.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            rows.push(String::new());
        }
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let last = rows.last_mut().expect("never empty");
            if !last.is_empty() {
                last.push(' ');
            }
            let room = width.saturating_sub(last.chars().count()).max(1);
            if word.len() <= room {
                last.extend(word);
                break;
            }
            let rest = word.split_off(room);
            last.extend(word);
            word = rest;
            rows.push(String::new());
        }
    }
    rows
}

/// One key of the help: its label, then what it does, wrapped under
/// itself so that the keys stand out in their column.
fn help_lines(key: &str, what: &str, key_w: usize, width: usize) -> Vec<Line<'static>> {
    let indent = 2 + key_w + 1;
    wrap_words(what, width.saturating_sub(indent))
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let k = if i == 0 { key } else { "" };
            Line::from(format!("  {k:<key_w$} {text}"))
        })
        .collect()
}

fn draw_confirm(frame: &mut Frame, area: Rect) {
    let r = popup(area, 56, 5);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from("The game is not over. Quit?"),
            Line::from("The journal keeps it: arbiter play --resume").dim(),
            Line::from("y: quit    any other key: stay"),
        ])
        .block(Block::bordered().title(" Quit ")),
        r,
    );
}
