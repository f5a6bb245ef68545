Feature: Exporting a transcript as subtitles, text or JSON
  As an integrator
  I want the transcript in the formats my players and tools read
  So that I do not have to turn the text into subtitles myself

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A phone call as SubRip subtitles names its speakers
    When I submit "call-stereo-22k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    And I export the job as "srt"
    Then the response status is 200
    And the export is a "application/x-subrip" download named after the job with the extension "srt"
    And every cue lasts at most 7 seconds and holds at most 84 characters
    And the cues name the speakers "Խոսնակ 1" and "Խոսնակ 2"

  Scenario: WebVTT subtitles mark the speakers with voice tags
    When I submit "call-stereo-22k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    And I export the job as "vtt"
    Then the response status is 200
    And the export is a "text/vtt" download named after the job with the extension "vtt"
    And the export starts with "WEBVTT"
    And every cue lasts at most 7 seconds and holds at most 84 characters
    And the cues carry the voice tags "<v Խոսնակ 1>" and "<v Խոսնակ 2>"

  Scenario: Plain text is the transcription
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    And I export the job as "txt"
    Then the response status is 200
    And the export is a "text/plain" download named after the job with the extension "txt"
    And the export is the job's transcription

  Scenario: JSON has the segments and the words with their times and speakers
    When I submit "call-stereo-22k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    And I export the job as "json"
    Then the response status is 200
    And the export is a "application/json" download named after the job with the extension "json"
    And the export has segments and words, each with a start, an end and a speaker, in time order

  Scenario: A job not yet transcribed cannot be exported
    When I create a "single_voice" job
    And I export the job as "srt"
    Then the response status is 409
    And the response is a JSON error whose message mentions "transcribed"

  Scenario: An unknown format is refused
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    And I export the job as "docx"
    Then the response status is 400
    And the response is a JSON error whose message mentions "srt, vtt, txt, json"

  Scenario: Another customer's transcript cannot be exported
    Given another customer "Clinic B" has a Business account with 600 seconds of audio remaining
    And "Clinic B" has submitted "speech-mono-16k.mp3" as a "single_voice" job
    And "Clinic B" polls their job until it is finished
    When I export "Clinic B"'s job as "txt"
    Then the response status is 404
    And the response body is identical to the one for exporting a job that does not exist
