Feature: Retrying a creation safely with an Idempotency-Key
  As an integrator whose requests sometimes time out
  I want to retry createTranscription with the same Idempotency-Key
  So that a retry never makes a second job or a second charge

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A retry with the same key and body gets the first answer again
    When I create a "single_voice" job with the Idempotency-Key "order-1042"
    And I create a "single_voice" job with the Idempotency-Key "order-1042"
    Then every answer gives the same docId and upload address
    And all answers but one are marked as replays

  Scenario: A whole retried submission is transcribed and charged once
    When I submit "speech-mono-16k.mp3" as a "single_voice" job with the Idempotency-Key "call-7"
    And I create a "single_voice" job with the Idempotency-Key "call-7"
    Then every answer gives the same docId and upload address
    When I upload "speech-mono-16k.mp3" to the job's upload address
    Then the upload is refused with status 409
    When I poll the job until it is finished
    Then the job is "transcribed"
    And my account's balance went down by the job's duration

  Scenario: The same key with another body is refused and creates nothing
    When I create a "single_voice" job with the Idempotency-Key "k-1"
    And I create a "phone_call" job with the Idempotency-Key "k-1"
    Then the response status is 422
    And the response is a JSON error whose message mentions "different request body"
    And the answers give 1 docId

  Scenario: Concurrent requests with one key make one job
    When I send 6 requests creating a "phone_call" job with the Idempotency-Key "burst" at the same moment
    Then every answer gives the same docId and upload address
    And all answers but one are marked as replays

  Scenario: A key belongs to one account
    Given another customer "Partner" has a Business account with 600 seconds of audio remaining
    When I create a "single_voice" job with the Idempotency-Key "shared"
    And "Partner" creates a "single_voice" job with the Idempotency-Key "shared"
    Then the answers give 2 docIds

  Scenario: Without the header every request creates a job, as before
    When I create a "single_voice" job with no Idempotency-Key
    And I create a "single_voice" job with no Idempotency-Key
    Then the answers give 2 docIds
    And no answer is marked as a replay
