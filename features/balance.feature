Feature: Paying for audio with the account's balance
  As a Business customer
  I want each transcribed recording to use up its length from my balance of seconds
  So that I pay for what I transcribe, and nothing for recordings that could not be transcribed

  Scenario: A transcribed recording uses up its length from the balance
    Given I have a Business account with 600 seconds of audio remaining
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And my account's balance went down by the job's duration

  Scenario: A recording longer than the remaining balance fails and costs nothing
    Given I have a Business account with 2 seconds of audio remaining
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    And the job's error says the recording is about 5.58 seconds long and 2 seconds remain
    And my account still has 2 seconds of audio remaining

  Scenario: A shorter recording still fits after a longer one was refused
    Given I have a Business account with 3 seconds of audio remaining
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    When I submit "id3-stereo-44k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And my account's balance went down by the job's duration

  Scenario: A recording that fails during transcription is refunded
    Given I have a Business account with 600 seconds of audio remaining
    When I submit "silence-mono-44k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    And my account still has 600 seconds of audio remaining
