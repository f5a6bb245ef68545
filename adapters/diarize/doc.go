package diarize

// References: the methods the code follows (the package comment, in
// diarize.go, says how they are put together).
//
//   - Front end (dsp.go): pre-emphasis 0.97, Hamming window, mel filter bank
//     and DCT to cepstra, deltas by the regression formula over ±2 frames:
//     S. Young et al., The HTK Book, ch. 5 "Speech Input/Output";
//     S. Davis, P. Mermelstein, "Comparison of parametric representations
//     for monosyllabic word recognition in continuously spoken sentences",
//     IEEE Trans. ASSP 28(4), 1980.
//   - Pitch and voicing from the autocorrelation (inverse FFT of the power
//     spectrum): L. Rabiner, "On the use of autocorrelation analysis for
//     pitch detection", IEEE Trans. ASSP 25(1), 1977; P. Boersma, "Accurate
//     short-term analysis of the fundamental frequency and the
//     harmonics-to-noise ratio of a sampled sound", Proc. IFA 17, 1993.
//   - Clustering of windows and the overall design (segment, cluster,
//     resegment): X. Anguera et al., "Speaker diarization: a review of
//     recent research", IEEE Trans. ASLP 20(2), 2012.
//   - Frame-level resegmentation with per-speaker GMMs and Viterbi
//     (reseg.go): G. Sell, D. Garcia-Romero, "Diarization resegmentation in
//     the factor analysis subspace", ICASSP 2015 (here on MFCCs, without
//     the subspace).
//   - The Gaussian likelihood of a split, the ΔBIC criterion without its
//     penalty term (diagonal covariances when ahc.go merges units, full
//     ones when swap.go moves them): S. Chen, P. Gopalakrishnan, "Speaker,
//     environment and channel change detection and clustering via the
//     Bayesian information criterion", DARPA Broadcast News Workshop, 1998.
//   - Diarization error rate (der.go): NIST, "Rich Transcription evaluation
//     plan" (RT-09): missed speech, false alarm and speaker confusion over
//     the scored reference speech, with a collar around its boundaries.
