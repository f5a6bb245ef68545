package features

import (
	"context"

	"github.com/cucumber/godog"
)

// initScenario gives every scenario a fresh world and binds the steps to it.
func (s *suite) initScenario(sc *godog.ScenarioContext) {
	w := newWorld(s)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		w.close()
		return ctx, nil
	})

	w.analysisSteps(sc)
	w.integratorSteps(sc)
	w.exportSteps(sc)
	w.reconcileSteps(sc)

	// Accounts, set up with the hyscribe CLI as an operator would.
	sc.Step(`^I have a (Business|Free) account with (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.iHaveAccount)
	sc.Step(`^another customer "([^"]+)" has a (Business|Free) account with (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.anotherCustomer)
	sc.Step(`^I have a second API key for my account$`, w.secondKey)
	sc.Step(`^my account is moved to the Free plan$`, w.moveToFree)
	sc.Step(`^my account (?:sends|starts sending) events to my receiver with the secret "([^"]*)"$`, w.myReceiver)
	sc.Step(`^"([^"]+)" sends events to their receiver with the secret "([^"]*)"$`, w.theirReceiver)
	sc.Step(`^my account sends events to a receiver that answers every request with status (\d+)$`, w.failingReceiver)
	sc.Step(`^my account sends events to an address where nothing is listening$`, w.deadReceiver)
	sc.Step(`^my account stops sending events$`, w.stopEvents)
	sc.Step(`^my account asks to be told about failed jobs$`, w.notifyFailures)
	sc.Step(`^my account still has (\d+(?:\.\d+)?) seconds? of audio remaining$`, w.balanceIs)
	sc.Step(`^my account's balance went down by the job's duration$`, w.balanceWentDown)
	sc.Step(`^I have a checklist "([^"]*)" in my account$`, w.createChecklist)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job with that checklist$`, w.submitWithChecklist)
	sc.Step(`^upload addresses are valid for only (\d+) seconds$`, w.shortUploadWindow)

	// Creating jobs.
	sc.Step(`^I create a "([^"]*)" job$`, w.createPlain)
	sc.Step(`^I have created a "([^"]*)" job$`, w.createPlain)
	sc.Step(`^"([^"]+)" creates a "([^"]*)" job$`, w.theyCreate)
	sc.Step(`^I create a "([^"]*)" job with the metadata:$`, w.createWithMetadata)
	sc.Step(`^I create a job with the request body:\s*(.*)$`, w.createRaw)
	sc.Step(`^I create a "([^"]*)" job whose metadata is (\d+) (KiB|MiB) large$`, w.createBigMetadata)
	sc.Step(`^I create a "([^"]*)" job (without an API key|with the API key "[^"]*"|with a well-formed API key that was never issued|sending my API key with the "Basic" scheme)$`, w.createWithCredentials)
	sc.Step(`^I send a GET request to createTranscription$`, w.getCreate)
	sc.Step(`^the response gives a docId and an upload address$`, w.createAnswered)

	// Uploading.
	sc.Step(`^I upload "([^"]*)" to the job's upload address$`, w.uploadToJob)
	sc.Step(`^I upload "([^"]*)" to the job's upload address with (the signature|the expiry time|the docId, to that of another of my jobs) changed$`, w.uploadTampered)
	sc.Step(`^I upload "([^"]*)" and "([^"]*)" to the job's upload address at the same moment$`, w.uploadTwiceAtOnce)
	sc.Step(`^exactly one upload is accepted and the other is refused with status (\d+)$`, w.oneUploadWon)
	sc.Step(`^the job's duration is that of the accepted recording$`, w.durationOfWinner)
	sc.Step(`^the upload is accepted$`, w.uploadAccepted)
	sc.Step(`^the upload is refused with status (\d+)$`, w.uploadRefused)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job$`, w.iSubmit)
	sc.Step(`^I submit "([^"]*)" as a "([^"]*)" job with the metadata:$`, w.iSubmitWithMetadata)
	sc.Step(`^"([^"]+)" (?:submits|has submitted) "([^"]*)" as a "([^"]*)" job$`, w.theySubmit)
	sc.Step(`^the job's upload address is an absolute http address outside of "([^"]*)"$`, w.uploadAddressOutside)
	sc.Step(`^I wait until the job's upload address has expired$`, w.waitUploadExpired)

	// Polling.
	sc.Step(`^I check the job$`, w.checkJob)
	sc.Step(`^I poll the job until it is finished$`, w.pollUntilFinished)
	sc.Step(`^"([^"]+)" polls their job until it is finished$`, w.theyPollUntilFinished)
	sc.Step(`^I ask for the job$`, w.checkJobAny)
	sc.Step(`^I ask for the job (without an API key|with the API key "[^"]*"|with a well-formed API key that was never issued|sending my API key with the "Basic" scheme)$`, w.askWithCredentials)
	sc.Step(`^I ask for a job without giving its docId$`, w.askWithoutDocID)
	sc.Step(`^I ask for a job that does not exist$`, w.askUnknown)
	sc.Step(`^"([^"]+)" asks for a job that does not exist$`, w.theyAskUnknown)
	sc.Step(`^I ask for "([^"]+)"'s job$`, w.askTheirJob)
	sc.Step(`^I send a (POST|PUT|DELETE|PATCH) request to getTranscription for the job$`, w.wrongMethodPoll)
	sc.Step(`^the response body is identical to the one for a job that does not exist$`, w.identicalToUnknown)

	// The job as polled.
	sc.Step(`^the job is "([^"]*)"$`, w.jobIs)
	sc.Step(`^the job shows exactly the fields (.+)$`, w.jobFields)
	sc.Step(`^while the job was unfinished, no answer showed a transcription, title, resolution, language code or error$`, w.noEarlyFields)
	sc.Step(`^the job's docId is the one given at creation$`, w.jobDocID)
	sc.Step(`^the job's type is "([^"]*)"$`, w.jobType)
	sc.Step(`^the job's language code is "([^"]*)"$`, w.jobLanguage)
	sc.Step(`^the job's duration is null$`, w.durationNull)
	sc.Step(`^the job's duration is about (\d+(?:\.\d+)?) seconds$`, w.durationAbout)
	sc.Step(`^the job's metadata is exactly what I sent$`, w.jobMetadataAsSent)
	sc.Step(`^the job's metadata is \{\}$`, w.jobMetadataEmpty)
	sc.Step(`^the job's creation time is an ISO 8601 timestamp of when I created it$`, w.createdAtISO)
	sc.Step(`^the job's transcription, title and resolution are Armenian text$`, w.armenianTexts)
	sc.Step(`^the job's title is one line of at most (\d+) characters$`, w.titleShape)
	sc.Step(`^the job's resolution is one paragraph of at most (\d+) characters$`, w.resolutionShape)
	sc.Step(`^the job's transcription has no speaker labels$`, w.noSpeakerLabels)
	sc.Step(`^the job's transcription has one line per turn, labelled in this order:$`, w.turnsInOrder)
	sc.Step(`^the job's transcription uses exactly the two labels "([^"]*)" and "([^"]*)"$`, w.jobTwoLabels)
	sc.Step(`^the job's error mentions (".*")$`, w.errorMentions)
	sc.Step(`^the job's error says the recording is about (\d+(?:\.\d+)?) seconds long and (\d+(?:\.\d+)?) seconds remain$`, w.balanceError)

	// Answers of the service.
	sc.Step(`^the response status is (\d+)$`, w.statusIs)
	sc.Step(`^the response is a JSON error with a message and a code$`, w.jsonError)
	sc.Step(`^the response is a JSON error whose message mentions "([^"]*)"$`, w.jsonErrorMentions)

	// Rate limit.
	sc.Step(`^at least (\d+) seconds remain in the current minute$`, w.secondsLeftInMinute)
	sc.Step(`^I poll the job (\d+) times in a row$`, w.burstPolls)
	sc.Step(`^all of those polls are answered with status (\d+) within the same minute$`, w.burstAnswered)
	sc.Step(`^I poll the job once more$`, w.checkJobAny)
	sc.Step(`^the response has a Retry-After header of whole seconds between 1 and 60, no more than the seconds left in the current minute$`, w.retryAfter)
	sc.Step(`^I poll the job with my second API key$`, w.pollWithSecondKey)
	sc.Step(`^I wait as many seconds as Retry-After said$`, w.waitRetryAfter)

	// Events at receivers.
	sc.Step(`^my receiver gets a "([^"]*)" event for the job$`, w.myEvent)
	sc.Step(`^"([^"]+)"'s receiver gets a "([^"]*)" event for their job$`, w.theirEvent)
	sc.Step(`^the event is a JSON POST$`, w.eventIsJSONPost)
	sc.Step(`^the event has exactly the fields (.+)$`, w.eventFields)
	sc.Step(`^the event's secret is "([^"]*)"$`, w.eventSecret)
	sc.Step(`^the event is about the job$`, w.eventAboutJob)
	sc.Step(`^the event's metadata is exactly what I sent$`, w.eventMetadata)
	sc.Step(`^the event's link is the job's page in the web application$`, w.eventLink)
	sc.Step(`^the event carries the headers webhook-id, webhook-timestamp and webhook-signature$`, w.eventHeaders)
	sc.Step(`^the event's webhook-signature is valid for the secret "([^"]*)"$`, w.eventSignature)
	sc.Step(`^the event's transcription, title and resolution are those of the job$`, w.eventMatchesJob)
	sc.Step(`^the event's error is that of the job$`, w.eventErrorMatchesJob)
	sc.Step(`^the event's transcription uses exactly the two labels "([^"]*)" and "([^"]*)"$`, w.eventTwoLabels)
	sc.Step(`^my receiver gets nothing about the job within (\d+) seconds$`, w.nothingAboutJob)
	sc.Step(`^my receiver was sent the event for the job exactly once, as the service does not retry$`, w.sentOnce)
}
