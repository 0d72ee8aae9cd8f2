import Testing
import PushAgentCore

@Suite struct DisplayTextTests {
    @Test func controlAndBidiCharactersBecomeQuestionMarks() {
        #expect(DisplayText.sanitized("Sign in to Wiki — Zürich 東京") == "Sign in to Wiki — Zürich 東京")
        #expect(DisplayText.sanitized("a\u{1B}[2Kb\u{7}c") == "a?[2Kb?c")
        #expect(DisplayText.sanitized("tab\tnew\nline\r") == "tab?new?line?")
        #expect(DisplayText.sanitized("two\nlines\u{1B}[A", keepingLineFeeds: true) == "two\nlines?[A")
        #expect(DisplayText.sanitized("\u{202E}txt.exe \u{2066}x\u{2069} \u{200F}") == "?txt.exe ?x? ?")
    }
}
