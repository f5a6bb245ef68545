// Package analysis is the built-in checklist analyser: for each question it
// looks for the question's expected phrases in the transcript, after an
// Armenian-aware normalisation (case, punctuation and the stress and
// question marks written inside words, the և/եւ/եվ spellings, common
// inflectional suffixes), with a fuzzy token match that forgives small
// recognition errors. Pure Go, no outside service.
package analysis
