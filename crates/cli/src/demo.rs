//! `verdict demo`: the arena tutorial's four bots, end to end, on bundled data.

pub fn run() -> anyhow::Result<()> {
    print!("{}", verdict::tutorial::tutorial_walkthrough()?);
    Ok(())
}
