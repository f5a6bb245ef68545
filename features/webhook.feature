Feature: Receiving results on my own receiver
  As a Business customer with a receiver of my own
  I want the service to send me each transcript when it is ready
  So that I do not have to poll, and can trust where the message came from

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A finished transcript is sent to my receiver
    Given my account sends events to my receiver with the secret "ready-s3cr3t"
    When I submit "speech-mono-16k.mp3" as a "single_voice" job with the metadata:
      """
      {"ticket": "T-77", "customer": {"name": "Անի"}}
      """
    Then my receiver gets a "transcript_ready" event for the job
    And the event is a JSON POST
    And the event has exactly the fields event_type, secret, docId, transcription, metadata, title, resolution and link
    And the event's secret is "ready-s3cr3t"
    And the event is about the job
    And the event's metadata is exactly what I sent
    And the event's link is the job's page in the web application
    And the event carries the headers webhook-id, webhook-timestamp and webhook-signature
    And the event's webhook-signature is valid for the secret "ready-s3cr3t"
    When I poll the job until it is finished
    Then the job is "transcribed"
    And the event's transcription, title and resolution are those of the job

  Scenario: A phone call's transcript is sent with its speaker labels
    Given my account sends events to my receiver with the secret "call-secret"
    When I submit "call-stereo-22k.mp3" as a "phone_call" job
    Then my receiver gets a "transcript_ready" event for the job
    And the event's transcription uses exactly the two labels "Խոսնակ 1" and "Խոսնակ 2"

  Scenario: A receiver that answers with an error does not affect my job or other customers
    Given my account sends events to a receiver that answers every request with status 500
    And another customer "Partner" has a Business account with 600 seconds of audio remaining
    And "Partner" sends events to their receiver with the secret "partner-secret"
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And "Partner" submits "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And "Partner"'s receiver gets a "transcript_ready" event for their job
    And the event's secret is "partner-secret"
    And my receiver was sent the event for the job exactly once, as the service does not retry

  Scenario: A receiver that is not listening does not affect my job or other customers
    Given my account sends events to an address where nothing is listening
    And another customer "Partner" has a Business account with 600 seconds of audio remaining
    And "Partner" sends events to their receiver with the secret "partner-secret"
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And "Partner" submits "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And "Partner"'s receiver gets a "transcript_ready" event for their job
    And the event's secret is "partner-secret"

  Scenario: Switching from push to pull needs no new API key
    Given my account sends events to my receiver with the secret "switch-secret"
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    Then my receiver gets a "transcript_ready" event for the job
    When my account stops sending events
    And I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And my receiver gets nothing about the job within 2 seconds

  Scenario: Switching from pull to push needs no new API key
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    When my account starts sending events to my receiver with the secret "later-secret"
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    Then my receiver gets a "transcript_ready" event for the job
    And the event's secret is "later-secret"

  Scenario: With failure notifications on, a failed job is sent to my receiver
    Given my account sends events to my receiver with the secret "fail-secret"
    And my account asks to be told about failed jobs
    When I submit "silence-mono-44k.mp3" as a "single_voice" job with the metadata:
      """
      {"ref": "F-1"}
      """
    Then my receiver gets a "transcript_failed" event for the job
    And the event is a JSON POST
    And the event has exactly the fields event_type, secret, docId, error, metadata and link
    And the event's secret is "fail-secret"
    And the event is about the job
    And the event's metadata is exactly what I sent
    And the event's link is the job's page in the web application
    And the event's webhook-signature is valid for the secret "fail-secret"
    When I poll the job until it is finished
    Then the job is "failed"
    And the event's error is that of the job

  Scenario: Without failure notifications, nothing is sent for a failed job
    Given my account sends events to my receiver with the secret "quiet-secret"
    When I submit "silence-mono-44k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    And my receiver gets nothing about the job within 2 seconds

  Scenario: A receiver that was down finds the jobs it missed and has their events sent again
    Given my account sends events to an address where nothing is listening
    And another customer "Partner" has a Business account with 600 seconds of audio remaining
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And "Partner" submits "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    And my account starts sending events to my receiver with the secret "back-secret"
    And I list my "transcribed" jobs
    Then the list holds the job and no job of "Partner"
    When I ask for the job's "transcript_ready" event to be sent again
    Then the answer says my receiver took it
    And my receiver gets a "transcript_ready" event for the job
    And the event's secret is "back-secret"
    And the event my receiver got carries the webhook-id the answer names
