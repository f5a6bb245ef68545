Feature: Clear answers to requests the service cannot serve
  As a developer integrating with the API
  I want every refused request to get the right status and a readable JSON error
  So that my integration can tell what went wrong and never sees a server error

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario Outline: Creating a job with an invalid request body is refused (<problem>)
    When I create a job with the request body: <body>
    Then the response status is 400
    And the response is a JSON error with a message and a code

    Examples:
      | problem                        | body                                                                  |
      | malformed JSON                 | {"type": "single_voice"                                               |
      | not a JSON object              | ["single_voice"]                                                      |
      | empty body                     |                                                                       |
      | no type                        | {"metadata": {"crmId": "C-1"}}                                        |
      | type null                      | {"type": null}                                                        |
      | type not a string              | {"type": 1}                                                           |
      | unknown type                   | {"type": "video_call"}                                                |
      | metadata is a string           | {"type": "single_voice", "metadata": "crmId=C-1"}                     |
      | metadata is a list             | {"type": "single_voice", "metadata": ["C-1"]}                         |
      | checklistId not a string       | {"type": "single_voice", "checklistId": 42}                           |
      | checklistId unknown            | {"type": "single_voice", "checklistId": "no-such-checklist"}          |

  Scenario: Creating a job with metadata over the size limit is refused
    When I create a "single_voice" job whose metadata is 2 MiB large
    Then the response status is 413
    And the response is a JSON error with a message and a code

  Scenario: Metadata just under the size limit is accepted and returned unchanged
    When I create a "single_voice" job whose metadata is 200 KiB large
    Then the response status is 200
    When I check the job
    Then the job's metadata is exactly what I sent

  Scenario Outline: Creating a job without a valid API key is refused (<credentials>)
    When I create a "single_voice" job <credentials>
    Then the response status is 401
    And the response is a JSON error with a message and a code

    Examples:
      | credentials                                   |
      | without an API key                            |
      | with the API key "not-a-real-key"             |
      | with a well-formed API key that was never issued |
      | sending my API key with the "Basic" scheme    |

  Scenario: Creating a job needs a Business plan
    Given another customer "Freeloader" has a Free account with 600 seconds of audio remaining
    When "Freeloader" creates a "single_voice" job
    Then the response status is 403
    And the response is a JSON error with a message and a code

  Scenario: Creating a job with the wrong method is refused
    When I send a GET request to createTranscription
    Then the response status is 405
    And the response is a JSON error with a message and a code

  Scenario: Asking for a job without its docId is refused
    When I ask for a job without giving its docId
    Then the response status is 400
    And the response is a JSON error with a message and a code

  Scenario Outline: Asking for a job without a valid API key is refused (<credentials>)
    Given I have created a "single_voice" job
    When I ask for the job <credentials>
    Then the response status is 401
    And the response is a JSON error with a message and a code

    Examples:
      | credentials                                   |
      | without an API key                            |
      | with the API key "not-a-real-key"             |
      | with a well-formed API key that was never issued |
      | sending my API key with the "Basic" scheme    |

  Scenario: Asking for a job that does not exist gives 404
    When I ask for a job that does not exist
    Then the response status is 404
    And the response is a JSON error with a message and a code

  Scenario: Another customer's job looks exactly like one that does not exist
    Given another customer "Neighbour" has a Business account with 600 seconds of audio remaining
    And "Neighbour" has submitted "speech-mono-16k.mp3" as a "single_voice" job
    When I ask for "Neighbour"'s job
    Then the response status is 404
    And the response body is identical to the one for a job that does not exist
    When "Neighbour" polls their job until it is finished
    Then the job is "transcribed"

  Scenario Outline: Asking for a job with the <method> method is refused
    Given I have created a "single_voice" job
    When I send a <method> request to getTranscription for the job
    Then the response status is 405
    And the response is a JSON error with a message and a code
    When I check the job
    Then the job is "uploading"

    Examples:
      | method |
      | POST   |
      | PUT    |
      | DELETE |
      | PATCH  |

  Scenario: Asking for a job needs a Business plan
    Given another customer "Freeloader" has a Free account with 600 seconds of audio remaining
    When "Freeloader" asks for a job that does not exist
    Then the response status is 403
    And the response is a JSON error with a message and a code

  Scenario: A customer moved to the Free plan can no longer use the API
    Given I have created a "single_voice" job
    When my account is moved to the Free plan
    And I ask for the job
    Then the response status is 403
    And the response is a JSON error with a message and a code
