import Scenario

/// `Expectation` without the Testing module's type of that name in sight.
typealias ScenarioCheck = Expectation
