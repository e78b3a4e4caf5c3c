//! `verdict report RESULT... --out FILE`: saved results drawn as one page
//! ([`verdict::results`]).

use std::path::Path;

use crate::args::ReportArgs;

pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let out = crate::output::outputs().page(&args.out, "--out");
    let paths: Vec<&Path> = args.results.iter().map(|p| p.as_path()).collect();
    verdict::outputs::Outputs::check_with_inputs(&[Some(out.clone())], &paths)?;
    let page = verdict::results::report_page(
        &paths,
        args.title.as_deref(),
        &[verdict_lab::results::LAB_RESULTS],
    )?;
    verdict::page::write_page(&out, &page)?;
    println!(
        "{} (one self-contained page of {} result{}; open it in a browser)",
        args.out.display(),
        paths.len(),
        if paths.len() == 1 { "" } else { "s" }
    );
    Ok(())
}
