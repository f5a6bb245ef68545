Feature: Deleting a recording and everything kept of it
  As a clinic or a call centre
  I want to delete a recording, its transcript and its analysis
  So that I can answer data-protection requests and keep my retention rules

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A deleted job is gone from polling and exports
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    And I delete the job
    Then the response status is 200
    And the response says the job was deleted
    When I ask for the job
    Then the response status is 404
    When I export the job as "txt"
    Then the response status is 404

  Scenario: Deleting a job again answers the same
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    And I delete the job
    And I delete the job
    Then the response status is 200
    And the response says the job was deleted

  Scenario: A job deleted before its upload takes no audio and sends no event
    Given my account sends events to my receiver with the secret "s3cret"
    When I create a "single_voice" job
    And I delete the job
    And I upload "speech-mono-16k.mp3" to the job's upload address
    Then the upload is refused with status 403
    And my receiver gets nothing about the job within 2 seconds
    And my account still has 600 seconds of audio remaining

  Scenario: Another customer cannot delete my job, and learns nothing
    Given another customer "Clinic B" has a Business account with 600 seconds of audio remaining
    And "Clinic B" has submitted "speech-mono-16k.mp3" as a "single_voice" job
    And "Clinic B" polls their job until it is finished
    When I delete "Clinic B"'s job
    Then the response status is 404
    And the response body is identical to the one for deleting a job that does not exist
    And "Clinic B"'s job is still transcribed

  Scenario: A request without a docId is refused
    When I delete a job without giving its docId
    Then the response status is 400
    And the response is a JSON error whose message mentions "docId"
