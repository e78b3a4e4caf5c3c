//! `verdict demo`: the tour of all three parts ([`verdict_lab::tour`]), printed, and its
//! page written to `--out` (by default `demo-report.html`).

use crate::args::DemoArgs;

pub fn run(args: &DemoArgs, quiet: bool) -> anyhow::Result<()> {
    let progress = |part: &str| {
        if !quiet {
            eprintln!("verdict demo: {part}");
        }
    };
    let page = crate::output::page_target(&args.out, "--out");
    page.check()?;
    let tour = verdict_lab::tour::tour(&progress)?;
    crate::output::write_page(&page, &tour.page)?;
    print!("{}", tour.text);
    println!(
        "\nThe report of all of it: {} (one self-contained page; open it in a browser)",
        args.out.display()
    );
    Ok(())
}
