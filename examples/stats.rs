use arbiter::games::enprise::random::random_game;
use arbiter::event::EventBody;
fn main() {
    let mut tot = 0; let mut checks=0; let mut mates=0; let mut elim=0; let mut over=0; let mut caps=0; let mut summons=0; let mut esc=0; let mut passes=0;
    for seed in 0..200u64 {
        let g = random_game(seed, 2 + (seed % 3) as usize, 200);
        tot += g.turns.len();
        for t in &g.turns { for e in &t.events { match e {
            EventBody::Check{..} => checks+=1, EventBody::Checkmate{..} => mates+=1, EventBody::Eliminated{..}=>elim+=1, EventBody::GameOver{..}=>over+=1,
            EventBody::Action(a) if a.action=="capture" => caps+=1,
            EventBody::Action(a) if a.action=="summon_king" => summons+=1,
            EventBody::Action(a) if a.action=="escape_square" => esc+=1,
            EventBody::Action(a) if a.action=="pass" => passes+=1,
            _=>{} }}}
    }
    println!("turns {tot} checks {checks} mates {mates} elim {elim} over {over} caps {caps} summons {summons} esc {esc} passes {passes}");
}
