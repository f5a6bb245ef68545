Feature: Checklist analysis of my recordings
  As a Business customer who reviews calls with QA checklists
  I want each recording analysed against the checklist I name when I create the job
  So that the answers to my checklist's questions reach my receiver without anyone listening to the call

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A job with a checklist yields analysis_ready with a result for every question
    Given my account sends events to my receiver with the secret "qa-secret"
    And I have a checklist "Call quality" in my account
    When I submit "speech-mono-16k.mp3" as a "single_voice" job with that checklist
    Then my receiver gets an "analysis_ready" event for the job
    And the event is a JSON POST
    And the event has exactly the fields event_type, secret, docId, analysisId, metadata, checklistId, checklistName, results and link
    And the event's secret is "qa-secret"
    And the event is about the job
    And the event's link is the job's page in the web application
    And the event's checklist is mine, named "Call quality"
    And the event's results are keyed by exactly the question ids greeting and order
    And every result has the question, an answer of yes, no or unclear, a score from 0 to 1 and its evidence
    When I poll the job until it is finished
    Then the job is "transcribed"

  Scenario: An unknown checklist is refused
    When I create a job with the request body: {"type": "single_voice", "checklistId": "no-such-checklist"}
    Then the response status is 400
    And the response is a JSON error whose message mentions "no-such-checklist"

  Scenario: An archived checklist is refused
    Given I have a checklist "Retired" in my account
    When I archive that checklist
    And I create a "single_voice" job with that checklist
    Then the response status is 400
    And the response is a JSON error with a message and a code

  Scenario: A checklist edited after the job was created still reports the version the job used
    Given my account sends events to my receiver with the secret "qa-secret"
    And I have a checklist "Call quality" in my account
    When I create a "single_voice" job with that checklist
    And I change that checklist to "Call quality v2" with the single question "tone"
    And I upload "speech-mono-16k.mp3" to the job's upload address
    Then my receiver gets an "analysis_ready" event for the job
    And the event's checklist is mine, named "Call quality"
    And the event's results are keyed by exactly the question ids greeting and order

  Scenario: A dead analysis receiver does not affect the job
    Given my account sends events to my receiver with the secret "qa-secret"
    And my account sends analysis events to an address where nothing is listening
    And I have a checklist "Call quality" in my account
    When I submit "speech-mono-16k.mp3" as a "single_voice" job with that checklist
    Then my receiver gets a "transcript_ready" event for the job
    When I poll the job until it is finished
    Then the job is "transcribed"
    And my receiver gets no "analysis_ready" event about the job within 2 seconds
