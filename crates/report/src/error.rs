/// Errors of rendering and plotting.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be written.
    #[error(transparent)]
    Io(#[from] verdict_io::IoError),
    /// The plot could not be drawn.
    #[error("cannot draw {path}: {message}")]
    Plot {
        /// The target file.
        path: String,
        /// What failed.
        message: String,
    },
    /// The plot file's extension is not .svg or .png.
    #[error("{path}: plots are written as .svg or .png; name the file accordingly")]
    PlotFormat {
        /// The file named.
        path: String,
    },
    /// CSV output failed.
    #[error("cannot format CSV: {0}")]
    Csv(#[from] csv::Error),
}
